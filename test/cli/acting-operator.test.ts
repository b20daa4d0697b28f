// `--as` names an operator for the task, request and user commands only. On a command that always runs as the
// host's root (datastore, api-key, client, import, policy, connection) it is refused before anything opens
// the store, with a sentence saying why, instead of being silently ignored.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // No store: a refusal must come before the command looks for one.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LETHE_DATA_DIR: '/nonexistent/lethe-acting-operator-test',
    LETHE_OPERATOR: '',
  };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('lethe --as', () => {
  const rootOnly: string[][] = [
    ['datastore', 'list'],
    ['api-key', 'create', '--name', 'n', '--datastore', 'd'],
    ['client', 'create', '--name', 'n', '--scope', 'policy:read'],
    ['import', '--datastore', 'd', 'people.ndjson'],
    ['policy', 'list'],
    ['connection', 'list'],
  ];
  for (const args of rootOnly) {
    it(
      `is refused on "${args[0]}", which runs as the host's root, naming why`,
      { timeout: 120_000 },
      async () => {
        for (const form of [
          [...args, '--as', 'clara'],
          ['--as=clara', ...args],
        ]) {
          const answer = await run(form);
          assert.equal(answer.code, 2, answer.stderr);
          assert.match(
            answer.stderr,
            new RegExp(
              `^lethe: --as applies to the task, request, user commands only: "${args[0]}" runs as the host's root \\(audited as cli\\)`,
            ),
          );
          assert.equal(answer.stdout, '');
        }
      },
    );
  }

  it('is explained in the usage', { timeout: 120_000 }, async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /task, request and user commands act as the operator --as USERNAME/);
    assert.match(help.stdout, /always run as the host's\s+root: --as on them is refused/);
  });
});
