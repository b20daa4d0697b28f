// The shipped monitoring files: the Prometheus alert rules load (promtool check rules) and behave as their
// unit tests say (promtool test rules); the Grafana dashboard's queries are valid PromQL (checked by
// promtool as recording rules); and both name only metrics a running Lethe exports: a renamed metric
// fails here, not in an operator's silent dashboard.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { startTestService, type TestService } from '../helpers/service.ts';
import { promtool, scrape, seriesNames } from './support.ts';

const RULES_DIR = path.resolve(import.meta.dirname, '../../ops/prometheus');
const RULES = path.join(RULES_DIR, 'lethe-rules.yml');
const DASHBOARD = path.resolve(import.meta.dirname, '../../ops/grafana/lethe-dashboard.json');

/** The metric names a PromQL expression mentions (Lethe's and the Node.js process defaults). */
function metricNames(expr: string): string[] {
  return expr.match(/\b(?:lethe|nodejs|process)_[a-z0-9_]+/g) ?? [];
}

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
    const dir = await mkdtemp(path.join(tmpdir(), 'lethe-dashboard-'));
    try {
      const file = path.join(dir, 'dashboard-queries.yml');
      const rules = expressions.map(({ expr }, index) => ({ record: `lethe:dashboard:query${index}`, expr }));
      await writeFile(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
      const { status, output } = promtool(['check', 'rules', file]);
      assert.equal(status, 0, output);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
