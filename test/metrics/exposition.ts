// A strict reading of the Prometheus text exposition format (0.0.4), in plain TypeScript so that the
// metrics tests need nothing outside `npm ci`: every line is a HELP, a TYPE, a comment or a sample;
// names, label names and escapes as the format allows them; a family's TYPE and HELP at most once and
// before its samples; no series twice; each histogram with its +Inf bucket, _sum and _count. The lint
// part holds Lethe's own metrics (lethe_*) to what `promtool check metrics` asks: help text, snake_case,
// counters ending in _total. When promtool is installed (CI), the metrics tests run it as well.

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
// Go's strconv.ParseFloat, which Prometheus uses: NaN and Inf in any case (prom-client writes `Nan`).
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity))$/i;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];
const SUMMARY_SUFFIXES = ['_sum', '_count'];

interface Sample {
  name: string;
  labels: Map<string, string>;
  line: number;
}

/** Reads `{a="x",b="y"}` from `text` at `start` ('{'); answers the labels and the index after '}'. */
export function readLabels(
  text: string,
  start: number,
  line: number,
): { labels: Map<string, string>; end: number } {
  const labels = new Map<string, string>();
  let at = start + 1;
  for (;;) {
    if (text[at] === '}') return { labels, end: at + 1 };
    const eq = text.indexOf('=', at);
    if (eq < 0) throw new Error(`line ${line}: a label without '='`);
    const name = text.slice(at, eq).trim();
    if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name ${JSON.stringify(name)}`);
    if (labels.has(name)) throw new Error(`line ${line}: label ${name} twice`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label ${name}'s value is not quoted`);
    let value = '';
    at = eq + 2;
    for (;;) {
      const char = text[at];
      if (char === undefined) throw new Error(`line ${line}: unterminated label value`);
      if (char === '"') break;
      if (char === '\\') {
        const escaped = text[at + 1];
        if (escaped === 'n') value += '\n';
        else if (escaped === '\\' || escaped === '"') value += escaped;
        else throw new Error(`line ${line}: bad escape \\${escaped ?? ''} in label ${name}`);
        at += 2;
      } else {
        value += char;
        at += 1;
      }
    }
    labels.set(name, value);
    at += 1;
    if (text[at] === ',') at += 1;
    else if (text[at] !== '}') throw new Error(`line ${line}: expected ',' or '}' after label ${name}`);
  }
}

function parseSample(text: string, line: number): Sample {
  const nameEnd = text.search(/[{ ]/);
  if (nameEnd <= 0) throw new Error(`line ${line}: a sample without a value`);
  const name = text.slice(0, nameEnd);
  if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name ${JSON.stringify(name)}`);
  let rest = text.slice(nameEnd);
  let labels = new Map<string, string>();
  if (rest.startsWith('{')) {
    const read = readLabels(rest, 0, line);
    labels = read.labels;
    rest = rest.slice(read.end);
  }
  const fields = rest.trim().split(/ +/);
  if (!rest.startsWith(' ') || fields.length < 1 || fields.length > 2)
    throw new Error(`line ${line}: expected a value and an optional timestamp after ${name}`);
  if (!VALUE.test(fields[0] as string))
    throw new Error(`line ${line}: bad value ${JSON.stringify(fields[0])}`);
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new Error(`line ${line}: bad timestamp`);
  return { name, labels, line };
}

/** The family a sample belongs to: a histogram's or summary's series map back to their declared name. */
function familyOf(name: string, types: Map<string, string>): string {
  if (types.has(name)) return name;
  for (const suffix of HISTOGRAM_SUFFIXES) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const type = types.get(base);
    if (type === 'histogram' || (type === 'summary' && SUMMARY_SUFFIXES.includes(suffix))) return base;
  }
  return name;
}

/** Throws on the first line the text format does not allow; answers the lint remarks on lethe_ metrics. */
export function checkExposition(text: string): string[] {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const sampled = new Set<string>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  const samplesByFamily = new Map<string, Sample[]>();
  let current: string | undefined;
  text
    .slice(0, -1)
    .split('\n')
    .forEach((raw, index) => {
      const line = index + 1;
      if (raw.trim() === '') return;
      const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(raw);
      if (meta) {
        const [, keyword, name, rest = ''] = meta as unknown as [string, string, string, string | undefined];
        if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name ${JSON.stringify(name)}`);
        if (sampled.has(name)) throw new Error(`line ${line}: ${keyword} of ${name} after its samples`);
        if (keyword === 'TYPE') {
          if (types.has(name)) throw new Error(`line ${line}: a second TYPE line for ${name}`);
          if (!TYPES.has(rest)) throw new Error(`line ${line}: unknown type ${JSON.stringify(rest)}`);
          types.set(name, rest);
        } else {
          if (helps.has(name)) throw new Error(`line ${line}: a second HELP line for ${name}`);
          helps.add(name);
        }
        return;
      }
      if (raw.startsWith('#')) return;
      const sample = parseSample(raw, line);
      const family = familyOf(sample.name, types);
      if (family !== current) {
        if (current !== undefined) closed.add(current);
        if (closed.has(family)) throw new Error(`line ${line}: ${family}'s samples are not together`);
        current = family;
      }
      sampled.add(family);
      const key = `${sample.name}{${[...sample.labels].sort().join(',')}}`;
      if (seen.has(key)) throw new Error(`line ${line}: the series ${key} twice`);
      seen.add(key);
      const list = samplesByFamily.get(family) ?? [];
      list.push(sample);
      samplesByFamily.set(family, list);
    });

  for (const [family, samples] of samplesByFamily) {
    if (types.get(family) !== 'histogram') continue;
    const buckets = samples.filter((sample) => sample.name === `${family}_bucket`);
    if (buckets.some((sample) => !sample.labels.has('le'))) throw new Error(`${family}: a bucket without le`);
    const groups = new Set(
      buckets.map((sample) => JSON.stringify([...sample.labels].filter(([name]) => name !== 'le').sort())),
    );
    for (const group of groups) {
      const inGroup = (sample: Sample) =>
        JSON.stringify([...sample.labels].filter(([name]) => name !== 'le').sort()) === group;
      if (!buckets.some((sample) => inGroup(sample) && sample.labels.get('le') === '+Inf'))
        throw new Error(`${family}${group}: no +Inf bucket`);
      for (const suffix of ['_sum', '_count'])
        if (!samples.some((sample) => sample.name === `${family}${suffix}` && inGroup(sample)))
          throw new Error(`${family}${group}: no ${suffix}`);
    }
  }

  const remarks: string[] = [];
  for (const name of new Set([...types.keys(), ...sampled])) {
    if (!name.startsWith('lethe_')) continue;
    if (!helps.has(name)) remarks.push(`${name} no help text`);
    if (/[A-Z]/.test(name))
      remarks.push(`${name} metric names should be written in 'snake_case' not 'camelCase'`);
    if (types.get(name) === 'counter' && !name.endsWith('_total'))
      remarks.push(`${name} counter metrics should have "_total" suffix`);
    if (!types.has(name)) remarks.push(`${name} has no TYPE line`);
  }
  return remarks;
}
