// The shipped Prometheus alert rules load (promtool check rules), behave as their unit tests say (promtool
// test rules), and name only metrics a running Lethe exports: a renamed metric fails here, not in an
// operator's silent dashboard.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startTestService, type TestService } from '../helpers/service.ts';
import { promtool, scrape, seriesNames } from './support.ts';

const RULES_DIR = path.resolve(import.meta.dirname, '../../ops/prometheus');
const RULES = path.join(RULES_DIR, 'lethe-rules.yml');

interface AlertRule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
}

async function rules(): Promise<AlertRule[]> {
  const document = parse(await readFile(RULES, 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return document.groups.flatMap((group) => group.rules);
}

describe('ops/prometheus/lethe-rules.yml', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
    await service.call('GET', '/health');
  });
  after(async () => service?.stop());

  it('loads in Prometheus', () => {
    const { status, output } = promtool(['check', 'rules', RULES]);
    assert.equal(status, 0, output);
    assert.match(output, /SUCCESS: \d+ rules found/);
  });

  it('fires the deadline alerts as its unit tests expect', () => {
    const { status, output } = promtool(['test', 'rules', path.join(RULES_DIR, 'lethe-rules.test.yml')]);
    assert.equal(status, 0, output);
  });

  it('alerts on open requests whose days_left is under 7', async () => {
    const deadline = (await rules()).find((rule) => rule.alert === 'LethePrivacyRequestsDueWithinAWeek');
    assert.ok(deadline);
    assert.match(deadline.expr, /lethe_privacy_requests_open_by_deadline\{days_left="0-6"\}/);
  });

  it('names only metrics a running Lethe exports', async () => {
    const exported = seriesNames(await scrape(service));
    const all = await rules();
    assert.ok(all.length >= 5);
    for (const rule of all) {
      const names = rule.expr.match(/\b(?:lethe|nodejs|process)_[a-z0-9_]+/g) ?? [];
      assert.ok(names.length > 0, `${rule.alert} names a metric`);
      for (const name of names) assert.ok(exported.has(name), `${rule.alert}: ${name} is not exported`);
    }
  });
});
