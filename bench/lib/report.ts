// The results table and bench/results.json: every figure next to its same-run baseline and target.
import { cpus, loadavg, totalmem } from 'node:os';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The same-run baseline the target is a ratio of, if any. */
  baseline: number | null;
  ratio: number | null;
  target: string;
  met: boolean;
}

export function figure(
  input: Omit<Figure, 'ratio' | 'met'> & { met: (value: number, ratio: number | null) => boolean },
): Figure {
  const ratio = input.baseline ? input.value / input.baseline : null;
  return {
    name: input.name,
    value: round(input.value),
    unit: input.unit,
    baseline: input.baseline === null ? null : round(input.baseline),
    ratio: ratio === null ? null : round(ratio),
    target: input.target,
    met: input.met(input.value, ratio),
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  node: string;
  postgres: string;
  mode: 'quick' | 'full';
  loadAverage: number[];
}

export function describeMachine(postgres: string, quick: boolean): Machine {
  return {
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: round(totalmem() / 2 ** 30),
    node: process.version,
    postgres,
    mode: quick ? 'quick' : 'full',
    loadAverage: loadavg().map(round),
  };
}

export async function writeReport(machine: Machine, store: string, figures: Figure[]): Promise<string> {
  const report = { machine, store, results: figures };
  const file = path.join(import.meta.dirname, '..', 'results.json');
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  const rows = figures.map((entry) => [
    entry.name,
    `${entry.value} ${entry.unit}`,
    entry.baseline === null ? '-' : String(entry.baseline),
    entry.ratio === null ? '-' : String(entry.ratio),
    entry.target,
    entry.met ? 'yes' : 'NO',
  ]);
  const header = ['figure', 'value', 'baseline', 'ratio', 'target', 'met'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
