// The house's boundaries are lint rules (eslint.config.js); a rule that no test exercises can be switched
// off by a merge without anyone noticing. Each case plants one violation in a real file's place and checks
// that lint names it with the expected rule, and that the file as committed has no such complaint.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

interface Planted {
  boundary: string;
  file: string;
  line: string;
  rule: string;
}

const planted: Planted[] = [
  {
    boundary: 'pg-boss outside jobs/',
    file: 'src/privacy-requests/jobs.ts',
    line: "import { PgBoss } from 'pg-boss';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'prom-client outside the metrics module',
    file: 'src/metrics/routes.ts',
    line: "import { Registry } from 'prom-client';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the mail library outside mail/',
    file: 'src/outbox/delivery.ts',
    line: "import nodemailer from 'nodemailer';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the OpenID Connect library outside its one module',
    file: 'src/sso/service.ts',
    line: "import * as openid from 'openid-client';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the outbox reaching up into the requests it delivers for',
    file: 'src/outbox/delivery.ts',
    line: "import { logRepository } from '../privacy-requests/log-repository.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the outbox reading the privacy center',
    file: 'src/outbox/enqueue.ts',
    line: "import { readPrivacyCenterSettings } from '../privacy-center-settings/settings.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'an API service importing the engine',
    file: 'src/privacy-requests/approval.ts',
    line: "import { PrivacyRequestExecutor } from './engine/executor.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the public side importing the engine',
    file: 'src/privacy-center/submission.ts',
    line: "import { PrivacyRequestExecutor } from '../privacy-requests/engine/executor.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'a route importing the rule runner',
    file: 'src/privacy-requests/routes.ts',
    line: "import { runPolicyRules } from './rules/runner.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the rules room importing the engine',
    file: 'src/privacy-requests/rules/access-package.ts',
    line: "import { startPrivacyRequestWorker } from '../engine/worker.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'Fastify in the engine',
    file: 'src/privacy-requests/engine/executor.ts',
    line: "import type { FastifyInstance } from 'fastify';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'Fastify in the store',
    file: 'src/datastore/subject-store.ts',
    line: "import Fastify from 'fastify';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'a Fastify plugin in a service',
    file: 'src/policies/service.ts',
    line: "import formbody from '@fastify/formbody';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the store importing its HTTP face',
    file: 'src/datastore/subject-store.ts',
    line: "import { rawInput } from '../subject-api/input.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the store importing the HTTP kit',
    file: 'src/datastore/subject-service.ts',
    line: "import { principalOf } from '../http/authorize.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the core calling a feature by name (cancel closing tasks inline)',
    file: 'src/privacy-requests/cancel.ts',
    line: "import { cancelTasksOf } from '../tasks/service.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the engine calling access delivery by name',
    file: 'src/privacy-requests/engine/completion-step.ts',
    line: "import { announceCompletion } from '../../access-delivery/completion.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the HTTP kit importing a domain',
    file: 'src/http/authorize.ts',
    line: "import { PolicyService } from '../policies/service.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: "a connection secret's key outside its owner",
    file: 'src/outbox/enqueue.ts',
    line: "export const stolen = (keyring: { key(p: string): Buffer }) => keyring.key('connection-secrets');",
    rule: 'lethe/secret-owners',
  },
  {
    boundary: "a connection secret's key as a template literal",
    file: 'src/callbacks/client.ts',
    line: 'export const stolen = (keyring: { key(p: string): Buffer }) => keyring.key(`connection-secrets`);',
    rule: 'lethe/secret-owners',
  },
  {
    boundary: "a datastore's value key outside the store's sealing module",
    file: 'src/datastore/entity-import.ts',
    line: 'export const stolen = (keyring: { key(p: string): Buffer }, d: string) => keyring.key(`datastore-values:${d}`);',
    rule: 'lethe/secret-owners',
  },
];

async function complaints(file: string, source: string, rule: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === rule)
    .map((message) => message.message);
}

describe('house boundaries (eslint.config.js)', () => {
  for (const violation of planted) {
    it(`refuses ${violation.boundary}`, async () => {
      const source = await readFile(path.join(root, violation.file), 'utf8');
      assert.deepEqual(
        await complaints(violation.file, source, violation.rule),
        [],
        'the file as committed passes',
      );
      const found = await complaints(violation.file, `${violation.line}\n${source}`, violation.rule);
      assert.equal(found.length, 1, `lint let "${violation.line}" into ${violation.file}`);
    });
  }

  it("lets a key's owner derive it", async () => {
    const file = 'src/connections/secrets.ts';
    const source = await readFile(path.join(root, file), 'utf8');
    assert.match(source, /secretKey\('connection-secrets'\)/);
    assert.deepEqual(await complaints(file, source, 'lethe/secret-owners'), []);
  });
});
