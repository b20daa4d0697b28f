// The house's boundaries are lint rules (eslint.config.js), and so is the rule that no test reads today's
// date for a calendar expectation; a rule that no test exercises can be switched off by a merge without
// anyone noticing. Each case plants one violation in a real file's place and checks that lint names it
// with the expected rule, and that the file as committed has no such complaint; a last case fails when a
// rule or a zone of the config has no plant that set it off.
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

  {
    boundary: 'the PostgreSQL driver in a domain module',
    file: 'src/privacy-requests/intake.ts',
    line: "import pg from 'pg';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the PostgreSQL driver in a route',
    file: 'src/policies/routes.ts',
    line: "import pg from 'pg';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the console importing src/',
    file: 'console/src/api.ts',
    line: "import { SCOPES } from '../../src/auth/scopes.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'a CLI command reaching a repository',
    file: 'src/cli/task-command.ts',
    line: "import { taskRepository } from '../tasks/repository.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'a route importing a secret module',
    file: 'src/privacy-requests/routes.ts',
    line: "import { openReplyToken } from './reply-token.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'a route importing the key ring',
    file: 'src/connections/routes.ts',
    line: "import { Keyring } from '../crypto/keyring.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'Fastify in intake (a domain file not named service)',
    file: 'src/privacy-requests/intake.ts',
    line: "import type { FastifyRequest } from 'fastify';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: "Fastify in tasks' creation",
    file: 'src/tasks/creation.ts',
    line: "import Fastify from 'fastify';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: "Fastify in verification's service",
    file: 'src/verification/service.ts',
    line: "import type { FastifyReply } from 'fastify';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the app factory importing the executor',
    file: 'src/runtime/app.ts',
    line: "import { PrivacyRequestExecutor } from '../privacy-requests/engine/executor.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the feature registration importing erasure itself (past its action type)',
    file: 'src/runtime/features.ts',
    line: "import { eraseDatastore } from '../privacy-requests/rules/erasure.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'the HTTP kit importing the auth service',
    file: 'src/http/authorize.ts',
    line: "import { AuthService } from '../auth/service.ts';",
    rule: 'import-x/no-restricted-paths',
  },
  {
    boundary: 'a key purpose held in a variable',
    file: 'src/outbox/enqueue.ts',
    line: "const purpose = 'connection-secrets' as const;\nexport const stolen = (keyring: { key(p: string): Buffer }) => keyring.key(purpose);",
    rule: 'lethe/secret-owners',
  },
  {
    boundary: 'a key taken through a computed member',
    file: 'src/outbox/enqueue.ts',
    line: "export const stolen = (keyring: { key(p: string): Buffer }) => keyring['key']('connection-secrets');",
    rule: 'lethe/secret-owners',
  },
  {
    boundary: 'a key method named at run time',
    file: 'src/outbox/enqueue.ts',
    line: "export const stolen = (keyring: Record<string, (p: string) => Buffer>, m: string) => keyring[m]('connection-secrets');",
    rule: 'lethe/secret-owners',
  },
  {
    boundary: 'a key method destructured off the ring',
    file: 'src/callbacks/client.ts',
    line: "export const stolen = (keyring: { key(p: string): Buffer }) => {\n  const { key } = keyring;\n  return key('connection-secrets');\n};",
    rule: 'lethe/secret-owners',
  },
  {
    boundary: 'a key method taken off the ring',
    file: 'src/callbacks/client.ts',
    line: 'export const stolen = (keyring: { secretKey(p: string): Buffer }) => keyring.secretKey;',
    rule: 'lethe/secret-owners',
  },
  {
    boundary: 'a log line on the console',
    file: 'src/policies/service.ts',
    line: "console.log('a value');",
    rule: 'no-console',
  },
  {
    boundary: 'a type imported as a value',
    file: 'src/policies/service.ts',
    line: "import { Keyring } from '../crypto/keyring.ts';\nexport type Ring = Keyring;",
    rule: '@typescript-eslint/consistent-type-imports',
  },
  {
    boundary: 'an unused variable',
    file: 'src/policies/service.ts',
    line: 'const unusedValue = 1;',
    rule: '@typescript-eslint/no-unused-vars',
  },
  {
    boundary: 'a regular expression that backtracks super-linearly',
    file: 'src/validation/email.ts',
    line: 'export const slow = /^a*a*b/;',
    rule: 'regexp/no-super-linear-backtracking',
  },
  {
    boundary: 'a regular expression whose search moves super-linearly',
    file: 'src/validation/email.ts',
    line: 'export const slow = /a+b/;',
    rule: 'regexp/no-super-linear-move',
  },
  {
    boundary: 'a misleading capturing group',
    file: 'src/validation/email.ts',
    line: 'export const misleading = /a+(a*)/;',
    rule: 'regexp/no-misleading-capturing-group',
  },
  {
    boundary: 'a way in minting trust it did not prove (the public form calling itself operator)',
    file: 'src/privacy-center/submission.ts',
    line: "import { givenByOperator } from '../privacy-requests/trusted-identity.ts';",
    rule: 'trust/trusted-identity',
  },
  {
    boundary: 'the agent path minting trust by code it never checked',
    file: 'src/agents/service.ts',
    line: "import { provedByCode } from '../privacy-requests/trusted-identity.ts';",
    rule: 'trust/trusted-identity',
  },
  {
    boundary: 'a whole import of the trust module',
    file: 'src/consent/service.ts',
    line: "import * as trust from '../privacy-requests/trusted-identity.ts';",
    rule: 'trust/trusted-identity',
  },
  {
    boundary: 'a cast to TrustedIdentity outside the trust module',
    file: 'src/corrections/service.ts',
    line: 'export const forged = (given: object) => given as unknown as TrustedIdentity;',
    rule: 'trust/trusted-identity',
  },
  {
    boundary: 'a cast to an array of TrustedMatch',
    file: 'src/privacy-requests/engine/executor.ts',
    line: 'export const forged = (given: object[]) => <TrustedMatch[]>given;',
    rule: 'trust/trusted-identity',
  },
  {
    boundary: "a test reading today's date",
    file: 'test/reports/records.test.ts',
    line: 'export const today = new Date().toISOString().slice(0, 10);',
    rule: 'no-restricted-syntax',
  },
  {
    boundary: 'a test building a date from the wall clock',
    file: 'test/audit/list-audit.test.ts',
    line: 'export const tomorrow = new Date(Date.now() + 86_400_000);',
    rule: 'no-restricted-syntax',
  },
  {
    boundary: "a test reading today's date as a string",
    file: 'test/deadlines/calendar.test.ts',
    line: 'export const today = Date();',
    rule: 'no-restricted-syntax',
  },
];

async function complaints(file: string, source: string, rule: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === rule)
    .map((message) => message.message);
}

interface Zone {
  message: string;
}
type RuleSetting = string | [string, ...unknown[]];
/** The config is plain JavaScript (eslint.config.js): read as data, the blocks of rules it states itself. */
const CONFIG: string = path.join(root, 'eslint.config.js');
const { houseRuleBlocks } = (await import(CONFIG)) as {
  houseRuleBlocks: { rules?: Record<string, RuleSetting> }[];
};

/** Every rule eslint.config.js configures itself, and every zone of its path rules. */
function configuredBoundaries(): { rules: string[]; zones: Zone[] } {
  const rules = new Set<string>();
  const zones: Zone[] = [];
  for (const block of houseRuleBlocks) {
    for (const [rule, setting] of Object.entries(block.rules ?? {})) {
      rules.add(rule);
      if (rule === PATH_RULE && Array.isArray(setting))
        zones.push(...(setting[1] as { zones: Zone[] }).zones);
    }
  }
  return { rules: [...rules], zones };
}

const PATH_RULE = 'import-x/no-restricted-paths';
/** The rules and zone messages each plant set off, for the check that every rule and zone has a plant. */
const caught = { rules: new Set<string>(), messages: [] as string[] };

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
      caught.rules.add(violation.rule);
      caught.messages.push(...found);
    });
  }

  it('has a plant for every rule and every zone the config states', () => {
    const { rules, zones } = configuredBoundaries();
    assert.ok(zones.length > 10, 'the path rules were read');
    const unplanted = rules.filter((rule) => !caught.rules.has(rule));
    assert.deepEqual(unplanted, [], 'rules without a planted violation');
    const messages = zones.map((zone) => zone.message.replace(/\.$/, ''));
    assert.equal(new Set(messages).size, messages.length, "each zone's message names it alone");
    const unplantedZones = messages.filter(
      (message) => !caught.messages.some((found) => found.includes(message)),
    );
    assert.deepEqual(unplantedZones, [], 'zones without a planted violation');
  });

  it("lets a key's owner derive it", async () => {
    const file = 'src/connections/secrets.ts';
    const source = await readFile(path.join(root, file), 'utf8');
    assert.match(source, /secretKey\('connection-secrets'\)/);
    assert.deepEqual(await complaints(file, source, 'lethe/secret-owners'), []);
  });
});
