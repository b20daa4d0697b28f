#!/usr/bin/env node
// The published command: Lethe's sources are TypeScript run through Node's type stripping (Node >= 22.18).
import '../src/cli.ts';
