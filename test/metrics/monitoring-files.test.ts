// The shipped monitoring files: the Prometheus alert rules are well-formed rule groups whose expressions
// parse as PromQL (Prometheus's own grammar, @prometheus-io/lezer-promql) and behave as their unit tests
// say (evaluated here, promql.ts); the Grafana dashboard's queries parse too; and both name only metrics a
// running Lethe exports: a renamed metric fails here, not in an operator's silent dashboard. Where promtool
// is installed (CI), `promtool check rules` and `promtool test rules` run on the same files as well.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type AlertRule,
  type Alert,
  firingAlerts,
  inputSeries,
  durationSeconds,
  parsePromql,
} from './promql.ts';
import { promtool, scrape, seriesNames } from './support.ts';

const RULES_DIR = path.resolve(import.meta.dirname, '../../ops/prometheus');
const RULES = path.join(RULES_DIR, 'lethe-rules.yml');
const DASHBOARD = path.resolve(import.meta.dirname, '../../ops/grafana/lethe-dashboard.json');

/** The metric names a PromQL expression's selectors name; fails the test unless it parses. */
function metricNames(expr: string): string[] {
  const { errors, metricNames: names } = parsePromql(expr);
  assert.deepEqual(errors, [], `${expr} is not valid PromQL`);
  return names;
}

async function rules(): Promise<AlertRule[]> {
  const document = parse(await readFile(RULES, 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return document.groups.flatMap((group) => group.rules);
}

const RULE_KEYS = new Set(['alert', 'record', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations']);

/** What `promtool check rules` checks of a file's structure; answers the number of rules. */
function checkRuleFile(document: unknown): number {
  assert.ok(document && typeof document === 'object', 'a YAML mapping');
  const { groups, ...rest } = document as { groups?: unknown };
  assert.deepEqual(Object.keys(rest), [], 'only groups at the top');
  assert.ok(Array.isArray(groups) && groups.length > 0, 'groups is a list');
  const groupNames = new Set<string>();
  let count = 0;
  for (const group of groups as { name?: unknown; rules?: unknown; interval?: unknown }[]) {
    assert.equal(typeof group.name, 'string', 'each group has a name');
    assert.ok(!groupNames.has(group.name as string), `group ${String(group.name)} once`);
    groupNames.add(group.name as string);
    assert.ok(Array.isArray(group.rules), `${String(group.name)}: rules is a list`);
    for (const rule of group.rules as Record<string, unknown>[]) {
      count += 1;
      const label = String(rule.alert ?? rule.record);
      for (const key of Object.keys(rule)) assert.ok(RULE_KEYS.has(key), `${label}: unknown field ${key}`);
      assert.ok((rule.alert === undefined) !== (rule.record === undefined), `${label}: alert or record`);
      const name = (rule.alert ?? rule.record) as unknown;
      assert.ok(
        typeof name === 'string' && /^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name),
        `${label}: a valid name`,
      );
      assert.ok(typeof rule.expr === 'string' && rule.expr.trim() !== '', `${label}: an expression`);
      assert.deepEqual(parsePromql(rule.expr).errors, [], `${label}: ${rule.expr} is valid PromQL`);
      if (rule.for !== undefined) durationSeconds(String(rule.for));
      if (rule.record !== undefined)
        assert.equal(rule.annotations, undefined, `${label}: a record has no annotations`);
      for (const field of ['labels', 'annotations'])
        for (const [key, value] of Object.entries((rule[field] ?? {}) as Record<string, unknown>)) {
          assert.match(key, /^[a-zA-Z_][a-zA-Z0-9_]*$/, `${label}: ${field} name ${key}`);
          assert.equal(typeof value, 'string', `${label}: ${field}.${key} is a string`);
        }
    }
  }
  return count;
}

interface RuleTestFile {
  rule_files: string[];
  evaluation_interval?: string;
  tests: {
    interval?: string;
    input_series: { series: string; values: string }[];
    alert_rule_test?: {
      eval_time: string;
      alertname: string;
      exp_alerts: { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }[];
    }[];
  }[];
}

describe('ops/prometheus/lethe-rules.yml', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
    await service.call('GET', '/health');
  });
  after(async () => service?.stop());

  it('loads in Prometheus', async () => {
    const count = checkRuleFile(parse(await readFile(RULES, 'utf8')));
    const checked = promtool(['check', 'rules', RULES]);
    if (checked) {
      assert.equal(checked.status, 0, checked.output);
      assert.match(checked.output, new RegExp(`SUCCESS: ${count} rules found`));
    }
  });

  it('fires the deadline alerts as its unit tests expect', async () => {
    const file = path.join(RULES_DIR, 'lethe-rules.test.yml');
    const document = parse(await readFile(file, 'utf8')) as RuleTestFile;
    assert.deepEqual(document.rule_files, ['lethe-rules.yml']);
    const all = await rules();
    const evaluationInterval = durationSeconds(document.evaluation_interval ?? '1m');
    let checks = 0;
    for (const test of document.tests) {
      const series = inputSeries(test.input_series, durationSeconds(test.interval ?? '1m'));
      for (const expected of test.alert_rule_test ?? []) {
        const rule = all.find((one) => one.alert === expected.alertname);
        assert.ok(rule, `${expected.alertname} is a rule`);
        const fired = firingAlerts(rule, series, durationSeconds(expected.eval_time), evaluationInterval);
        const wanted: Alert[] = expected.exp_alerts.map((alert) => ({
          labels: alert.exp_labels ?? {},
          annotations: alert.exp_annotations ?? {},
        }));
        assert.deepEqual(fired, wanted, `${expected.alertname} at ${expected.eval_time}`);
        checks += 1;
      }
    }
    assert.ok(checks >= 3, 'the unit tests ran');
    const tested = promtool(['test', 'rules', file]);
    if (tested) assert.equal(tested.status, 0, tested.output);
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
      const names = metricNames(rule.expr);
      assert.ok(names.length > 0, `${rule.alert} names a metric`);
      for (const name of names) assert.ok(exported.has(name), `${rule.alert}: ${name} is not exported`);
    }
  });
});

describe('ops/grafana/lethe-dashboard.json', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
    await service.call('GET', '/health');
  });
  after(async () => service?.stop());

  interface Panel {
    title: string;
    targets: { expr: string }[];
  }
  const panels = async () => (JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] }).panels;

  it('has panels for the deadline, requests, API, webhooks, queue, event loop and memory', async () => {
    const titles = (await panels()).map((panel) => panel.title);
    for (const title of [
      'Open requests due within 7 days',
      'Privacy requests by status',
      'API p95 by route',
      'Webhook calls by outcome',
      'Queue jobs',
      'Event-loop delay p99',
      'Memory',
    ])
      assert.ok(titles.includes(title), title);
  });

  it('queries in valid PromQL, naming only metrics a running Lethe exports', async () => {
    const exported = seriesNames(await scrape(service));
    const expressions = (await panels()).flatMap((panel) =>
      panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })),
    );
    for (const { panel, expr } of expressions) {
      const names = metricNames(expr);
      assert.ok(names.length > 0, `${panel} names a metric`);
      for (const name of names) assert.ok(exported.has(name), `${panel}: ${name} is not exported`);
    }
    const rules = expressions.map(({ expr }, index) => ({ record: `lethe:dashboard:query${index}`, expr }));
    const document = { groups: [{ name: 'dashboard', rules }] };
    assert.equal(checkRuleFile(document), expressions.length);
    const dir = await mkdtemp(path.join(tmpdir(), 'lethe-dashboard-'));
    try {
      const file = path.join(dir, 'dashboard-queries.yml');
      await writeFile(file, stringify(document));
      const checked = promtool(['check', 'rules', file]);
      if (checked) assert.equal(checked.status, 0, checked.output);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
