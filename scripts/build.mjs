// Compiles src/ into dist/ (git-ignored), the JavaScript that `npm start` and the `lethe` bin run. Node strips
// the types of .ts files itself, but that costs the service about 18 MB (amaro's WebAssembly) and keeps the
// typed source text, and Node refuses to do it under node_modules, where an installed `lethe` lives.
//
// Each file's types are stripped by amaro, the library Node itself strips them with, in its `strip-only`
// mode: every type is replaced by blanks (the sources use erasable syntax only; type checking is `npm run
// lint`'s), and relative `.ts` imports are rewritten to `.js`, as long. So every line and column of a built
// file is its source's: a stack trace of dist/x.js names the lines of src/x.ts without a source map
// (test/cli/stack-lines.test.ts). Source maps, which Node keeps decoded for every module it loads, cost
// the service about 6 MB (bench/README.md, issue 41). Other files of src/ (the migrations' SQL) are copied,
// so that dist/ mirrors src/ at the same depth from the package root and paths such as `../package.json`
// hold in both.
//
// Every built file takes its source's modification time, and one whose time differs from its source's (an
// edit, a checkout, a restore of an older file) is built again; what no longer has a source is removed. So
// the `lethe` bin, which `npm start` runs, checks this first and never starts code other than src/'s. Written
// in JavaScript because it has to run where Node will not strip types.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
export const SOURCE_DIR = path.join(ROOT, 'src');
export const BUILD_DIR = path.join(ROOT, 'dist');

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

function builtName(source) {
  return source.endsWith('.ts') ? `${source.slice(0, -'.ts'.length)}.js` : source;
}

/** What building `source` writes. */
function builtFiles(source) {
  return [builtName(source)];
}

/** Relative module specifiers ending in `.ts`, in static and dynamic imports and re-exports. */
const RELATIVE_TS_IMPORT = /(\bfrom\s*|\bimport\s*(?:\(\s*)?)(['"])(\.{1,2}\/[^'"\n]*)\.ts\2/g;

/** `source`'s JavaScript, line for line and column for column. */
function stripped(amaro, fileName) {
  const { code } = amaro.transformSync(readFileSync(fileName, 'utf8'), { mode: 'strip-only' });
  return code.replace(
    RELATIVE_TS_IMPORT,
    (_, keyword, quote, specifier) => `${keyword}${quote}${specifier}.js${quote}`,
  );
}

function modifiedMs(file) {
  try {
    return statSync(file).mtimeMs;
  } catch (error) {
    if (error.code === 'ENOENT') return -1;
    throw error;
  }
}

/** What a build would do: the sources to (re)compile or copy, and the built files left without a source. */
export function pendingWork() {
  const sources = filesUnder(SOURCE_DIR);
  const built = new Set(sources.flatMap(builtFiles));
  // Within a millisecond: utimes takes the time as a double of seconds, file systems keep nanoseconds.
  const stale = sources.filter((source) =>
    builtFiles(source).some(
      (file) =>
        Math.abs(modifiedMs(path.join(BUILD_DIR, file)) - modifiedMs(path.join(SOURCE_DIR, source))) >= 1,
    ),
  );
  const orphans = filesUnder(BUILD_DIR).filter((file) => !built.has(file));
  return { stale, orphans };
}

/**
 * Writes `source`'s built form with its modification time, through a temporary file so that a process
 * starting meanwhile never imports half a module.
 */
function writeBuilt(source, content) {
  const file = path.join(BUILD_DIR, builtName(source));
  const { atimeMs, mtimeMs } = statSync(path.join(SOURCE_DIR, source));
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  utimesSync(temporary, atimeMs / 1000, mtimeMs / 1000);
  renameSync(temporary, file);
}

/** Brings dist/ up to date with src/; answers how many files it wrote and removed. */
export function build() {
  const { stale, orphans } = pendingWork();
  if (stale.some((source) => source.endsWith('.ts'))) {
    // Loaded only when something is to compile: an up-to-date install needs no amaro.
    const amaro = createRequire(import.meta.url)('amaro');
    for (const source of stale.filter((file) => file.endsWith('.ts'))) {
      writeBuilt(source, stripped(amaro, path.join(SOURCE_DIR, source)));
    }
  }
  for (const source of stale.filter((file) => !file.endsWith('.ts'))) {
    writeBuilt(source, readFileSync(path.join(SOURCE_DIR, source)));
  }
  for (const orphan of orphans) rmSync(path.join(BUILD_DIR, orphan), { force: true });
  return { written: stale.length, removed: orphans.length };
}

if (process.argv[1] === import.meta.filename) {
  try {
    build();
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
    process.stderr.write(
      'lethe: amaro is not installed (devDependencies omitted), so src/ was not compiled into dist/; ' +
        'the lethe command runs the sources instead (Node strips their types).\n',
    );
  }
}
