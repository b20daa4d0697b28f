#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=15 --expose-gc
// The published command, and `npm start`'s (`lethe serve`). It runs the JavaScript compiled from src/ into
// dist/ (scripts/build.mjs): Node will not strip types under node_modules, and stripping costs the service
// about 18 MB (bench/README.md, issue 29). A dist/ older than src/ (a developer's edit) is rebuilt first, in
// a child process so that TypeScript's compiler does not stay in this one's heap; where TypeScript is not
// installed, the sources run as they are.
// The V8 flags (the same in `npm start`) keep the API under 200 MB RSS: V8 otherwise grows the young
// generation to 64 MiB on a large machine and lets the old generation grow ~2x between collections
// (bench/README.md has the measurements). --expose-gc lets file streaming ask for a minor GC every 512 KiB
// (src/datastore/file-store.ts) so that its dead buffers do not pile up outside the JS heap.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pendingWork } from '../scripts/build.mjs';

const upToDate = () => {
  const { stale, orphans } = pendingWork();
  return stale.length === 0 && orphans.length === 0;
};

if (!upToDate()) {
  const build = spawnSync(process.execPath, [fileURLToPath(import.meta.resolve('../scripts/build.mjs'))], {
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import(upToDate() ? '../dist/cli/main.js' : '../src/cli/main.ts');
