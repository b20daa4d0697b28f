// `node --test --test-global-setup=test/helpers/global-setup.ts`: one server for the whole run. Without
// LETHE_TEST_DATABASE_URL it starts an embedded server and hands its URL to every test file through that
// variable; on either server it migrates the template that test files clone. Debian's Chromium, which the
// browser tests drive, is installed first when missing (helpers/chromium.ts). With LETHE_RECORD_STATEMENTS
// naming a file, the embedded server counts the statements it is sent and the teardown writes them there,
// for CI's replay on PostgreSQL 15 (helpers/statement-replay.ts).
import path from 'node:path';
import { ensureChromium } from './chromium.ts';
import { createTestDatabase, ensureTemplate, startEmbeddedTestServer, type TestServer } from './database.ts';
import { RECORDING_SETTINGS, recordStatements } from './statement-replay.ts';

let server: TestServer | undefined;
const recordingFile = process.env.LETHE_RECORD_STATEMENTS;

export async function globalSetup(): Promise<void> {
  // Each test file, and each `lethe` command a test runs, is a process that loads the whole service. Node's
  // compile cache (keyed by each module's content, so an edit is never served stale) spares all but the
  // first the type stripping and compiling of the same modules: about 0.4 s of CPU a process.
  process.env.NODE_COMPILE_CACHE ??= path.resolve(
    import.meta.dirname,
    '../../node_modules/.cache/lethe-tests',
  );
  ensureChromium();
  if (!process.env.LETHE_TEST_DATABASE_URL) {
    server = await startEmbeddedTestServer(recordingFile ? RECORDING_SETTINGS : {});
    process.env.LETHE_TEST_DATABASE_URL = server.url;
  }
  await ensureTemplate(process.env.LETHE_TEST_DATABASE_URL);
}

export async function globalTeardown(): Promise<void> {
  if (server && recordingFile) {
    const schema = await createTestDatabase();
    await recordStatements(server.url, schema.url, recordingFile);
    await schema.drop();
  }
  await server?.stop();
}
