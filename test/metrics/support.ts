// Scraping a test service's /metrics and reading the answer: a strict reading of the text format
// (exposition.ts) judges the whole exposition, and parse-prometheus-text-format reads the values; where
// Prometheus's promtool is installed (CI installs Debian's prometheus package) `promtool check metrics`
// judges it as well. That parser folds a histogram's series into one sample and drops its labels when the
// histogram has labels, so histograms are read as their plain _bucket, _sum and _count series (their
// TYPE line left out), which is what they are on the wire.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import type { TestService } from '../helpers/service.ts';
import { checkExposition } from './exposition.ts';

export const PROMTOOL = process.env.LETHE_PROMTOOL ?? 'promtool';

export interface Scrape {
  text: string;
  families: Map<string, ParsedFamily>;
  /** Names declared `# TYPE <name> histogram`. */
  histograms: Set<string>;
}

/**
 * Runs promtool when it is installed: answers undefined when it is not (the callers' own checks stand
 * alone then; a promtool that exists but cannot run fails the test).
 */
export function promtool(args: string[], input?: string): { status: number; output: string } | undefined {
  const run = spawnSync(PROMTOOL, args, { input, encoding: 'utf8', timeout: 30_000 });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT' && !process.env.LETHE_PROMTOOL)
    return undefined;
  if (run.error) assert.fail(`${PROMTOOL} cannot run (${run.error.message})`);
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

/**
 * Fails unless the exposition is valid text format; lint remarks are allowed only on the Node.js defaults
 * prom-client exports under their customary names, never on a lethe_ metric.
 */
export function assertPrometheusParses(text: string) {
  assert.deepEqual(checkExposition(text), [], 'lethe_ metrics pass the lint');
  const checked = promtool(['check', 'metrics'], text);
  if (!checked) return;
  assert.ok(
    checked.status === 0 || checked.status === 3,
    `promtool cannot parse the exposition: ${checked.output}`,
  );
  const remarksOnOurs = checked.output.split('\n').filter((line) => line.startsWith('lethe_'));
  assert.deepEqual(remarksOnOurs, [], 'lethe_ metrics pass promtool lint');
}

export async function scrape(service: TestService, headers: Record<string, string> = {}): Promise<Scrape> {
  const answer = await service.call('GET', '/metrics', { headers });
  assert.equal(answer.status, 200, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assertPrometheusParses(answer.text);
  const histograms = new Set(
    [...answer.text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((match) => match[1] as string),
  );
  const untypedHistograms = answer.text.replace(/^# TYPE \S+ histogram\n/gm, '');
  // Untyped series interleave (each label set's _bucket, _sum, _count), so a name comes back once per run.
  const families = new Map<string, ParsedFamily>();
  for (const parsed of parsePrometheusTextFormat(untypedHistograms)) {
    const known = families.get(parsed.name);
    if (known) known.metrics.push(...parsed.metrics);
    else families.set(parsed.name, parsed);
  }
  return { text: answer.text, families, histograms };
}

export function family(scraped: Scrape, name: string): ParsedFamily {
  const found = scraped.families.get(name);
  assert.ok(found, `${name} is not exported`);
  return found;
}

/** The value of the one sample of `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(scraped: Scrape, name: string, labels: Record<string, string>): number {
  const samples = family(scraped, name).metrics.filter((metric) =>
    Object.entries(labels).every(([key, value]) => (metric.labels ?? {})[key] === value),
  );
  assert.ok(samples.length <= 1, `${name}${JSON.stringify(labels)} matches ${samples.length} samples`);
  return Number(samples[0]?.value ?? 0);
}

/**
 * Every series name a scrape declares: histograms as their _bucket, _sum and _count series, including a
 * histogram nothing was observed in yet (declared, but without a sample).
 */
export function seriesNames(scraped: Scrape): Set<string> {
  const names = new Set(scraped.families.keys());
  for (const name of scraped.histograms)
    for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  return names;
}
