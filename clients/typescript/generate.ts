// Generates the typed client's types (lethe-api.d.ts) from the committed document snapshot (openapi.json)
// with openapi-typescript, offline: a fresh clone needs no network and no running server. With `--from
// <url>` it first fetches the served document from a running Lethe into the snapshot (run it without
// LETHE_PUBLIC_URL so that `servers` stays relative). test/openapi/client.test.ts fails when the served
// document and the snapshot differ, or the committed types are not what this script makes of the snapshot.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SNAPSHOT = fileURLToPath(new URL('./openapi.json', import.meta.url));
export const GENERATED = fileURLToPath(new URL('./lethe-api.d.ts', import.meta.url));

/** The snapshot's text for a document: two-space JSON and a final newline, so that diffs stay readable. */
export function snapshotText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Runs openapi-typescript (the pinned devDependency) on `input`, writing `output`. */
export function generateTypes(input = SNAPSHOT, output = GENERATED): void {
  // The package's exports hide bin/; its entry point sits in dist/, next to it.
  const entry = createRequire(import.meta.url).resolve('openapi-typescript');
  const cli = path.join(path.dirname(entry), '..', 'bin', 'cli.js');
  const result = spawnSync(process.execPath, [cli, input, '--output', output], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openapi-typescript failed:\n${result.stdout}${result.stderr}`);
}

async function main(args: string[]): Promise<void> {
  const fromIndex = args.indexOf('--from');
  if (fromIndex >= 0) {
    const base = args[fromIndex + 1];
    if (!base) throw new Error('--from needs the URL of a running Lethe, e.g. http://127.0.0.1:8080');
    const response = await fetch(new URL('/openapi.json', base));
    if (!response.ok) throw new Error(`${base} answered ${response.status} for /openapi.json`);
    writeFileSync(SNAPSHOT, snapshotText(await response.json()));
  }
  generateTypes();
  process.stdout.write(`wrote ${GENERATED}\n`);
}

if (import.meta.main) await main(process.argv.slice(2));
