#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=15
// The published command: Lethe's sources are TypeScript run through Node's type stripping (Node >= 22.18).
// The V8 flags (the same in `npm start`) keep the API under 200 MB RSS: V8 otherwise grows the young
// generation to 64 MiB on a large machine and lets the old generation grow ~2x between collections
// (bench/README.md has the measurements).
import '../src/cli.ts';
