// Debian's Chromium for the browser tests (playwright-core drives it; it has no npm form). The test
// global setup calls ensureChromium() so that `npm test` after `npm ci` needs nothing done by hand: as
// root it installs the package with apt-get; otherwise it stops at once with the one command to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.LETHE_CHROMIUM ?? '/usr/bin/chromium';
export const INSTALL_COMMAND = 'apt-get update && apt-get install -y chromium';

export interface ChromiumCheck {
  path?: string;
  isRoot?: boolean;
  /** Runs one shell command with the output shown; answers its exit status. */
  run?: (command: string) => number;
}

function runShell(command: string): number {
  const result = spawnSync('sh', ['-c', command], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status ?? 1;
}

/** Answers 'present' or 'installed'; throws with the command to run when it cannot install. */
export function ensureChromium(check: ChromiumCheck = {}): 'present' | 'installed' {
  const file = check.path ?? CHROMIUM;
  if (existsSync(file)) return 'present';
  const hint = `the browser tests need Chromium at ${file}: run \`${INSTALL_COMMAND}\` as root (or point LETHE_CHROMIUM at a Chromium)`;
  const isRoot = check.isRoot ?? process.getuid?.() === 0;
  if (!isRoot) throw new Error(hint);
  process.stderr.write(`Chromium is missing at ${file}; installing it: ${INSTALL_COMMAND}\n`);
  const status = (check.run ?? runShell)(INSTALL_COMMAND);
  if (status !== 0 || !existsSync(file))
    throw new Error(`${INSTALL_COMMAND} failed (exit ${status}); ${hint}`);
  return 'installed';
}
