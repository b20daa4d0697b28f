// `node --test --test-global-setup=test/helpers/global-setup.ts`: one server for the whole run. Without
// LETHE_TEST_DATABASE_URL it starts an embedded server and hands its URL to every test file through that
// variable; on either server it migrates the template that test files clone. Debian's Chromium, which the
// browser tests drive, is installed first when missing (helpers/chromium.ts).
import { ensureChromium } from './chromium.ts';
import { ensureTemplate, startEmbeddedTestServer, type TestServer } from './database.ts';

let server: TestServer | undefined;

export async function globalSetup(): Promise<void> {
  ensureChromium();
  if (!process.env.LETHE_TEST_DATABASE_URL) {
    server = await startEmbeddedTestServer();
    process.env.LETHE_TEST_DATABASE_URL = server.url;
  }
  await ensureTemplate(process.env.LETHE_TEST_DATABASE_URL);
}

export async function globalTeardown(): Promise<void> {
  await server?.stop();
}
