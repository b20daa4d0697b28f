// The checks that stand in for promtool where it is not installed (exposition.ts, promql.ts) refuse what
// promtool refuses: a check that accepts everything would pass the metrics tests unread.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkExposition } from './exposition.ts';
import { evaluate, expandValues, firingAlerts, inputSeries, parsePromql } from './promql.ts';

const GOOD = [
  '# HELP lethe_things_total Things.',
  '# TYPE lethe_things_total counter',
  'lethe_things_total{kind="a \\"quoted\\" one"} 3',
  '# HELP lethe_wait_seconds Waits.',
  '# TYPE lethe_wait_seconds histogram',
  'lethe_wait_seconds_bucket{le="0.1",route="/x"} 1',
  'lethe_wait_seconds_bucket{le="+Inf",route="/x"} 2',
  'lethe_wait_seconds_sum{route="/x"} 0.3',
  'lethe_wait_seconds_count{route="/x"} 2',
  '',
].join('\n');

describe('the exposition check', () => {
  it('accepts a valid exposition', () => assert.deepEqual(checkExposition(GOOD), []));

  for (const [why, text] of [
    ['a bad metric name', GOOD.replace('lethe_things_total{', 'lethe-things_total{')],
    ['an unquoted label value', GOOD.replace('kind="a \\"quoted\\" one"', 'kind=a')],
    ['a bad escape', GOOD.replace('\\"quoted\\"', '\\q')],
    ['a bad value', GOOD.replace('} 3', '} three')],
    [
      'a second TYPE line',
      GOOD.replace('# HELP lethe_wait', '# TYPE lethe_things_total counter\n# HELP lethe_wait'),
    ],
    ['a series twice', `${GOOD}lethe_things_total{kind="a \\"quoted\\" one"} 4\n`],
    ['a family split in two', `${GOOD}lethe_things_total{kind="b"} 4\n`],
    ['a histogram without +Inf', GOOD.replace('le="+Inf"', 'le="1"')],
    ['a histogram without _count', GOOD.replace('lethe_wait_seconds_count{route="/x"} 2\n', '')],
    ['no final newline', GOOD.trimEnd()],
  ])
    it(`refuses ${why}`, () => assert.throws(() => checkExposition(text as string)));

  it('remarks on a lethe_ counter without _total and a metric without help', () => {
    const text = '# TYPE lethe_things counter\nlethe_things 1\n';
    assert.deepEqual(checkExposition(text), [
      'lethe_things no help text',
      'lethe_things counter metrics should have "_total" suffix',
    ]);
  });
});

describe('the PromQL helpers', () => {
  it('parse valid PromQL and name its metrics; report the errors of invalid PromQL', () => {
    assert.deepEqual(parsePromql('sum(rate(lethe_a_total{x!="y"}[5m])) / sum(lethe_b)'), {
      errors: [],
      metricNames: ['lethe_a_total', 'lethe_b'],
    });
    assert.notDeepEqual(parsePromql('sum(lethe_a{').errors, []);
    assert.notDeepEqual(parsePromql('lethe_a lethe_b').errors, []);
  });

  it('expand promtool series notation', () => {
    assert.deepEqual(expandValues('0 2x2 1+1x2 _'), [0, 2, 2, 2, 1, 2, 3, undefined]);
  });

  it('evaluate sum and comparison, and fire only after `for`', () => {
    const series = inputSeries(
      [
        { series: 'm{a="1"}', values: '0 1x10' },
        { series: 'm{a="2"}', values: '0 2x10' },
      ],
      60,
    );
    assert.deepEqual(evaluate('sum(m) > 2', series, 120), [{ labels: {}, value: 3 }]);
    assert.deepEqual(evaluate('sum(m{a!="2"}) > 2', series, 120), []);
    const rule = {
      alert: 'A',
      expr: 'sum(m) > 0',
      for: '5m',
      labels: { severity: 'x' },
      annotations: { s: '{{ $value }}' },
    };
    assert.deepEqual(firingAlerts(rule, series, 300, 60), []);
    assert.deepEqual(firingAlerts(rule, series, 360, 60), [
      { labels: { severity: 'x' }, annotations: { s: '3' } },
    ]);
    assert.throws(() => evaluate('avg(m) > 0', series, 60), /unsupported/);
  });
});
