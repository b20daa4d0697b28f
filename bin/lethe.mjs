#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --heap-growing-percent=30 --expose-gc
// The published command, and `npm start`'s (`lethe serve`). It runs the JavaScript compiled from src/ into
// dist/ (scripts/build.mjs): Node will not strip types under node_modules, and stripping costs the service
// about 18 MB (bench/README.md, issue 29). A dist/ file whose time differs from its source's (a developer's
// edit, a checkout) is built again first, in a child process so that the type stripper (amaro's WebAssembly) does not stay
// in this one's heap; where amaro is not installed, the sources run as they are.
// The V8 flags (the same in `npm start`) keep the API under 200 MB RSS: V8 otherwise grows the young
// generation to 64 MiB on a large machine and lets the old generation grow ~2x between collections. 8 MiB
// semi-spaces and 30 % growth, against 4 and 15 before issue 29, halve the scavenges and the full
// collections under entity/create for 3 MiB more after start (bench/README.md has the measurements).
// MALLOC_ARENA_MAX=2 (also in `npm start`) keeps glibc from giving each of the process's threads (libuv's
// pool, V8's helpers) a malloc arena of its own: about 3 MiB less after start (bench/README.md, issue 41).
// --expose-gc lets file streaming ask for a minor GC every 512 KiB (src/datastore/file-store.ts) so that
// its dead buffers do not pile up outside the JS heap.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pendingWork } from '../scripts/build.mjs';

const upToDate = () => {
  const { stale, orphans } = pendingWork();
  return stale.length === 0 && orphans.length === 0;
};

// Each check walks src/ and dist/, so an up-to-date start checks once.
let built = upToDate();
if (!built) {
  const build = spawnSync(process.execPath, [fileURLToPath(import.meta.resolve('../scripts/build.mjs'))], {
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  built = upToDate();
}
// dist/'s files keep their sources' lines and columns (scripts/build.mjs), so a stack trace of dist/x.js
// names the lines of src/x.ts.
await import(built ? '../dist/cli/main.js' : '../src/cli/main.ts');
