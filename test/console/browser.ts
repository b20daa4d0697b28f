// Browser plumbing of the console end-to-end tests: Debian's Chromium driven by playwright-core, the
// console build (made once if missing), sign-in, and screenshots kept under test-artifacts/.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM } from '../helpers/chromium.ts';
import type { TestService } from '../helpers/service.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');

/** `npm ci` builds the console (prepare); a working tree without a build gets one here. */
export function ensureConsoleBuilt() {
  if (existsSync(path.join(ROOT, 'console/dist/index.html'))) return;
  execFileSync(path.join(ROOT, 'node_modules/.bin/vite'), ['build', 'console', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

export async function launchBrowser(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export async function screenshot(page: Page, name: string, fullPage = true) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core's WCAG 2.1 A and AA rules on the page as it is now and answers the violations. The script
 * is evaluated through the DevTools protocol, which the page's CSP does not govern; the page is unchanged.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResult> } }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/**
 * Records what must never happen on a console page: an uncaught script error, or anything the browser
 * blocked under the Content-Security-Policy (an inline script or style, a foreign origin).
 */
export function watchForPageProblems(page: Page, problems: string[]) {
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to (load|execute|apply|connect)/i.test(message.text()))
      problems.push(`CSP: ${message.text()}`);
  });
}

/**
 * Opens `url` on the sign-in form. A session this tab stored before (sessionStorage survives page.goto) is
 * signed out first, so that each sign-in starts from the form.
 */
async function openSignInForm(page: Page, url: string) {
  await page.goto(url);
  const form = page.getByRole('form', { name: 'Sign in' });
  const nav = page.getByRole('navigation', { name: 'Sections' });
  await form.or(nav).first().waitFor();
  if (await nav.isVisible()) {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await form.waitFor();
    if (page.url() !== url) await page.goto(url);
    await form.waitFor();
  }
  await page.getByLabel('An operator account').or(page.getByLabel('A management client')).first().waitFor();
}

/** Opens the console and signs in with a management client: the service's root client unless one is given. */
export async function signIn(
  page: Page,
  service: TestService,
  at = '/console',
  client: { id: string; secret: string } = service.config.rootClient as { id: string; secret: string },
) {
  await openSignInForm(page, `${service.url}${at}`);
  await page.getByLabel('A management client').check();
  await page.getByLabel('Client id').fill(client.id);
  await page.getByLabel('Client secret').fill(client.secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).waitFor();
}

/** Opens the console and signs in as an operator. */
export async function signInAsOperator(page: Page, service: TestService, username: string, password: string) {
  await openSignInForm(page, `${service.url}/console`);
  await page.getByLabel('An operator account').check();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).waitFor();
}
