// `lethe import --datastore D FILE.ndjson [--batch-size N] [--restart]`: the terminal side of
// entity-import.ts. Owns the arguments, the progress display (a bar on a terminal, a plain line at most
// once a second otherwise), Ctrl-C (the first stops after the batch being committed, the second at
// once) and the final report. Runs against the store directly, never over HTTP: see docs/area-b.md.
import { realpath } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import { notFound } from '../errors.ts';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { DATASTORE_NAME } from '../api-keys/keys.ts';
import {
  EntityImporter,
  type ImportProgress,
  type ImportResult,
  MAX_BATCH_SIZE,
} from '../datastore/entity-import.ts';
import { SarMailer } from '../mail/access-report-mail.ts';
import { SubjectService } from '../datastore/subject-service.ts';

export const IMPORT_USAGE = `Usage: lethe import --datastore NAME FILE.ndjson [--batch-size N] [--restart]

  Loads entities into the datastore NAME, one /api/entity/create item per line:
    {"id": "<optional UUID>", "name": "<table>", "attributes": [{"name": "...", "value": "..."}],
     "references": [{"parentId": "<UUID of an earlier line or a stored entity>", "parentName": "<table>"}]}
  --batch-size N   lines committed per transaction (1 to ${MAX_BATCH_SIZE}, default 500)
  --restart        forget where an earlier import of FILE stopped and start at line 1
  Stopped (Ctrl-C, crash) imports continue where they stopped when run again with the same FILE.
  Exit status: 0 all lines imported, 1 some lines failed (listed at the end), 2 bad arguments,
  130 stopped by Ctrl-C.
`;

const DEFAULT_BATCH_SIZE = 500;
/** Failed lines listed at the end; the rest are counted. */
const LISTED_ERRORS = 1000;
const PLAIN_PROGRESS_INTERVAL_MS = 1000;

export interface ImportCommand {
  datastore: string;
  file: string;
  batchSize: number;
  restart: boolean;
}

const usage = (problem: string) => usageError(IMPORT_USAGE, problem);

export function parseImportCommand(argv: string[]): ImportCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    {
      datastore: { type: 'string' },
      'batch-size': { type: 'string' },
      restart: { type: 'boolean' },
    },
    IMPORT_USAGE,
  );
  const datastore = values.datastore;
  if (!datastore) throw usage('--datastore is required.');
  if (!new RegExp(DATASTORE_NAME).test(datastore)) {
    throw usage(`${JSON.stringify(datastore.slice(0, 100))} is not a datastore name.`);
  }
  if (positionals.length !== 1 || !positionals[0]) throw usage('give exactly one FILE.ndjson.');
  const rawBatch = values['batch-size'];
  const batchSize = rawBatch === undefined ? DEFAULT_BATCH_SIZE : Number(rawBatch);
  if (rawBatch !== undefined && (!/^\d+$/.test(rawBatch) || batchSize < 1 || batchSize > MAX_BATCH_SIZE)) {
    throw usage(`--batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE}.`);
  }
  return { datastore, file: positionals[0], batchSize, restart: values.restart ?? false };
}

const rate = (lines: number, seconds: number) => Math.round(lines / Math.max(seconds, 0.001));

function progressDisplay(out: NodeJS.WriteStream) {
  if (out.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format:
          '{bar} {percentage}% | {lines} lines | {created} created | {failed} failed | {rowsPerSecond} rows/s',
        stream: out,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let begun = false;
    const started = performance.now();
    return {
      update(progress: ImportProgress) {
        const values = {
          lines: progress.lines,
          created: progress.created,
          failed: progress.failed,
          rowsPerSecond: rate(progress.lines, (performance.now() - started) / 1000),
        };
        if (!begun) bar.start(progress.bytesTotal, progress.bytesDone, values);
        else bar.update(progress.bytesDone, values);
        begun = true;
      },
      stop: () => bar.stop(),
    };
  }
  let printedAt = -Infinity;
  const started = performance.now();
  return {
    update(progress: ImportProgress) {
      const now = performance.now();
      if (now - printedAt < PLAIN_PROGRESS_INTERVAL_MS && progress.bytesDone < progress.bytesTotal) return;
      printedAt = now;
      const percent = progress.bytesTotal
        ? Math.floor((100 * progress.bytesDone) / progress.bytesTotal)
        : 100;
      out.write(
        `progress: ${percent}% | ${progress.lines} lines | ${progress.created} created | ${progress.failed} failed | ${rate(progress.lines, (now - started) / 1000)} rows/s\n`,
      );
    },
    stop: () => undefined,
  };
}

function report(command: ImportCommand, result: ImportResult): string {
  const lines: string[] = [];
  const last = result.nextLine - 1;
  if (result.lines === 0 && result.finished) {
    lines.push(
      `Nothing new to import: lines 1 to ${last} of ${command.file} were imported into ${command.datastore} before.`,
    );
  } else {
    const resumed = result.startLine > 1 ? `Resumed at line ${result.startLine}: i` : 'I';
    lines.push(
      `${resumed}mported lines ${result.startLine} to ${last} of ${command.file} into ${command.datastore} ` +
        `in ${result.seconds.toFixed(1)} s (${rate(result.lines, result.seconds)} rows/s): ` +
        `${result.created} created, ${result.failed} failed.`,
    );
  }
  if (result.startLine > 1) {
    lines.push(`All runs of this import: ${result.totalCreated} created, ${result.totalFailed} failed.`);
  }
  if (!result.finished) {
    lines.push(`Stopped after line ${last}; run the same command again to continue at line ${last + 1}.`);
  }
  return `${lines.join('\n')}\n`;
}

function errorReport(result: ImportResult): string {
  if (result.totalFailed === 0) return '';
  const listed = result.errors.map((error) => `line ${error.line}: ${error.message}`);
  const more = result.totalFailed - result.errors.length;
  if (more > 0) listed.push(`… and ${more} more failed lines.`);
  return `${result.totalFailed} failed lines:\n${listed.join('\n')}\n`;
}

/** Runs the import; answers the exit status. */
export async function runImportCommand(
  services: Pick<Services, 'db' | 'keyring' | 'config'>,
  command: ImportCommand,
): Promise<number> {
  let file: string;
  try {
    file = await realpath(command.file);
  } catch {
    throw notFound(`Cannot read ${command.file}: no such file.`);
  }
  const mailer = new SarMailer(services.config);
  const subjects = new SubjectService(services.db, services.keyring, mailer);
  const importer = new EntityImporter(services.db, services.keyring, subjects);
  const display = progressDisplay(process.stdout);

  let stopRequested = false;
  const onSignal = () => {
    if (stopRequested) process.exit(130);
    stopRequested = true;
    process.stderr.write(
      '\nStopping after the batch being committed (press Ctrl-C again to quit at once).\n',
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: ImportResult;
  try {
    result = await importer.run(
      {
        datastore: command.datastore,
        file,
        batchSize: command.batchSize,
        restart: command.restart,
        shouldStop: () => stopRequested,
        onProgress: (progress) => display.update(progress),
      },
      LISTED_ERRORS,
    );
  } finally {
    display.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    mailer.close();
  }
  process.stdout.write(report({ ...command, file }, result));
  process.stderr.write(errorReport(result));
  if (!result.finished) return 130;
  return result.totalFailed > 0 ? 1 : 0;
}
