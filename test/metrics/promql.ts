// PromQL for the monitoring-file tests, without promtool: the Prometheus project's own grammar
// (@prometheus-io/lezer-promql, the parser behind Prometheus's web UI) says whether an expression parses
// and which metrics it names; a small evaluator runs the alert rules' unit tests (ops/prometheus/
// lethe-rules.test.yml) for the expressions those tests cover: sum over a selector compared with a
// number, or a selector compared with a number. Anything else is refused by name, so that a new unit
// test on a richer expression fails here instead of passing unread. promtool, when installed (CI), runs
// the same files as well.
import type { SyntaxNode } from '@lezer/common';
import { parser } from '@prometheus-io/lezer-promql';
import { readLabels } from './exposition.ts';

export interface ParsedExpression {
  /** Offsets where the parser found no valid PromQL; empty when the expression parses. */
  errors: number[];
  /** The metric names of the expression's selectors. */
  metricNames: string[];
}

export function parsePromql(expr: string): ParsedExpression {
  const errors: number[] = [];
  const metricNames: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'VectorSelector') {
        const identifier = node.node.getChild('Identifier');
        if (identifier) metricNames.push(expr.slice(identifier.from, identifier.to));
      }
    },
  });
  return { errors, metricNames };
}

type Labels = Record<string, string>;
interface Series {
  labels: Labels;
  /** Values by time in seconds. */
  points: { at: number; value: number }[];
}
interface Sample {
  labels: Labels;
  value: number;
}

const LOOKBACK_SECONDS = 300;

/** `1m`, `15m`, `2h`, `30s` in seconds. */
export function durationSeconds(text: string): number {
  const match = /^(\d+)(s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`unsupported duration ${text}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
}

/** promtool's series notation: `0 0 2x30` (2 then 30 more 2s), `1+1x5` (1, 2, ... 6), `_` for none. */
export function expandValues(notation: string): (number | undefined)[] {
  const values: (number | undefined)[] = [];
  for (const item of notation.trim().split(/\s+/)) {
    const repeat = /^(-?[\d.]+)(?:([+-][\d.]+))?x(\d+)$/.exec(item);
    if (repeat) {
      const [start, step, times] = [Number(repeat[1]), Number(repeat[2] ?? 0), Number(repeat[3])];
      for (let index = 0; index <= times; index += 1) values.push(start + step * index);
    } else if (item === '_') values.push(undefined);
    else if (/^-?[\d.]+$/.test(item)) values.push(Number(item));
    else throw new Error(`unsupported series value ${item}`);
  }
  return values;
}

/** `name{a="x", b="y"}` as labels with __name__. */
export function parseSeries(text: string): Labels {
  const trimmed = text.trim();
  const brace = trimmed.indexOf('{');
  const name = brace < 0 ? trimmed : trimmed.slice(0, brace);
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`unsupported series ${text}`);
  if (brace < 0) return { __name__: name };
  const { labels, end } = readLabels(trimmed, brace, 0);
  if (end !== trimmed.length) throw new Error(`unsupported series ${text}`);
  return { __name__: name, ...Object.fromEntries(labels) };
}

function unquote(text: string): string {
  return JSON.parse(text.startsWith("'") ? `"${text.slice(1, -1).replace(/"/g, '\\"')}"` : text) as string;
}

const COMPARISONS: Record<string, (left: number, right: number) => boolean> = {
  Gtr: (left, right) => left > right,
  Lss: (left, right) => left < right,
  Gte: (left, right) => left >= right,
  Lte: (left, right) => left <= right,
  EqlSingle: (left, right) => left === right,
  Neq: (left, right) => left !== right,
};

function evaluateNode(node: SyntaxNode, expr: string, series: Series[], at: number): Sample[] | number {
  const text = (child: SyntaxNode) => expr.slice(child.from, child.to);
  switch (node.name) {
    case 'PromQL':
    case 'ParenExpr':
    case 'FunctionCallBody': {
      const inner = node.firstChild?.name === '(' ? node.firstChild.nextSibling : node.firstChild;
      if (!inner) throw new Error('empty expression');
      return evaluateNode(inner, expr, series, at);
    }
    case 'NumberDurationLiteral':
    case 'NumberLiteral':
      return Number(text(node));
    case 'VectorSelector': {
      const name = node.getChild('Identifier');
      const matchers: [string, string, string][] = [];
      const list = node.getChild('LabelMatchers');
      for (let matcher = list?.firstChild; matcher; matcher = matcher.nextSibling) {
        if (matcher.name !== 'UnquotedLabelMatcher') continue;
        const label = matcher.getChild('LabelName');
        const op = matcher.getChild('MatchOp')?.firstChild;
        const value = matcher.getChild('StringLiteral');
        if (!label || !op || !value) throw new Error(`unsupported matcher ${text(matcher)}`);
        if (op.name !== 'EqlSingle' && op.name !== 'Neq') throw new Error(`unsupported match ${text(op)}`);
        matchers.push([text(label), op.name, unquote(text(value))]);
      }
      if (name) matchers.push(['__name__', 'EqlSingle', text(name)]);
      const samples: Sample[] = [];
      for (const one of series) {
        const fits = matchers.every(([label, op, value]) =>
          op === 'EqlSingle' ? (one.labels[label] ?? '') === value : (one.labels[label] ?? '') !== value,
        );
        const point = one.points.filter((p) => p.at <= at && at - p.at <= LOOKBACK_SECONDS).at(-1);
        if (fits && point) samples.push({ labels: one.labels, value: point.value });
      }
      return samples;
    }
    case 'AggregateExpr': {
      const op = node.getChild('AggregateOp')?.firstChild?.name;
      if (op !== 'Sum' || node.getChild('AggregateModifier')) throw new Error(`unsupported ${text(node)}`);
      const body = node.getChild('FunctionCallBody');
      const inner = body && evaluateNode(body, expr, series, at);
      if (!Array.isArray(inner)) throw new Error(`sum over a non-vector in ${text(node)}`);
      return inner.length ? [{ labels: {}, value: inner.reduce((total, s) => total + s.value, 0) }] : [];
    }
    case 'BinaryExpr': {
      const [left, op, right] = [node.firstChild, node.firstChild?.nextSibling, node.lastChild];
      const compare = op && COMPARISONS[op.name];
      if (!left || !right || !compare || op.nextSibling?.from !== right.from)
        throw new Error(`unsupported ${text(node)}`);
      const [vector, number] = [evaluateNode(left, expr, series, at), evaluateNode(right, expr, series, at)];
      if (!Array.isArray(vector) || typeof number !== 'number') throw new Error(`unsupported ${text(node)}`);
      return vector
        .filter((sample) => compare(sample.value, number))
        .map(({ labels: { __name__: _dropped, ...labels }, value }) => ({ labels, value }));
    }
    default:
      throw new Error(`the test evaluator does not know ${node.name} (${text(node)})`);
  }
}

export function evaluate(expr: string, series: Series[], at: number): Sample[] {
  const tree = parser.parse(expr);
  const answer = evaluateNode(tree.topNode, expr, series, at);
  if (!Array.isArray(answer)) throw new Error(`${expr} is a number, not a vector`);
  return answer;
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Labels;
  annotations?: Labels;
}
export interface Alert {
  labels: Labels;
  annotations: Labels;
}

function expand(template: string, sample: Sample): string {
  return template
    .replace(/\{\{\s*\$value\s*\}\}/g, String(sample.value))
    .replace(/\{\{\s*\$labels\.(\w+)\s*\}\}/g, (_, label: string) => sample.labels[label] ?? '');
}

/**
 * The alerts of `rule` firing at `evalSeconds`, evaluated every `intervalSeconds` from 0 as Prometheus
 * does: a series fires once the expression has held for it at every evaluation for `for`.
 */
export function firingAlerts(
  rule: AlertRule,
  series: Series[],
  evalSeconds: number,
  intervalSeconds: number,
) {
  const holdFor = rule.for ? durationSeconds(rule.for) : 0;
  const since = new Map<string, number>();
  let last: Sample[] = [];
  for (let at = 0; at <= evalSeconds; at += intervalSeconds) {
    last = evaluate(rule.expr, series, at);
    const keys = new Set(last.map((sample) => JSON.stringify(sample.labels)));
    for (const key of since.keys()) if (!keys.has(key)) since.delete(key);
    for (const key of keys) if (!since.has(key)) since.set(key, at);
  }
  return last
    .filter((sample) => evalSeconds - (since.get(JSON.stringify(sample.labels)) ?? evalSeconds) >= holdFor)
    .map((sample): Alert => ({
      labels: { ...sample.labels, ...rule.labels },
      annotations: Object.fromEntries(
        Object.entries(rule.annotations ?? {}).map(([key, template]) => [key, expand(template, sample)]),
      ),
    }));
}

/** promtool's input_series as series with their points. */
export function inputSeries(list: { series: string; values: string }[], intervalSeconds: number): Series[] {
  return list.map(({ series, values }) => ({
    labels: parseSeries(series),
    points: expandValues(values).flatMap((value, index) =>
      value === undefined ? [] : [{ at: index * intervalSeconds, value }],
    ),
  }));
}
