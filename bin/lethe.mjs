#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=15 --expose-gc
// The published command: Lethe's sources are TypeScript run through Node's type stripping (Node >= 22.18).
// The V8 flags (the same in `npm start`) keep the API under 200 MB RSS: V8 otherwise grows the young
// generation to 64 MiB on a large machine and lets the old generation grow ~2x between collections
// (bench/README.md has the measurements). --expose-gc lets file streaming ask for a minor GC every 512 KiB
// (src/datastore/file-store.ts) so that its dead buffers do not pile up outside the JS heap.
import '../src/cli/main.ts';
