// The `lethe` command. Entry point only: parse the command line, call into the runtime. Each command
// imports what it needs when it runs (the service, the store, the queue: most of a second of module
// loading), so that `--help`, a usage error or a listing does not load what it does not use.
import { parseArgs } from 'node:util';
import { SCOPES } from '../auth/scopes.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { DomainError } from '../errors.ts';
import type { RunningService } from '../runtime/start.ts';
import type { Services } from '../services.ts';
import { ROOT_CLIENT_ANNOUNCEMENT } from '../runtime/data-dir.ts';
import { OperatorRefused, takeActingOperator } from './acting-operator.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { parseWorkKinds, type WorkKind } from '../runtime/work.ts';
import { cliActor, framed } from './output.ts';

const USAGE = `Usage: lethe <command> [--help]

  serve [--work W,...]       run the API and one in-process worker (the default of npm start)
  worker [--work W,...]      run a worker only, against the same DATABASE_URL as the API
                             --work: what the worker does, of requests, messages, events (default all)
  migrate                    apply pending database migrations and exit
  client create [--name N] --scope S [--scope S ...]
                             create a management OAuth client and print its id and secret once
  api-key create --name N --datastore D [--datastore D2 | --datastore '*'] [--rate-limit N]
                             issue an API key for the subject data API and print it once
  api-key list               list API keys (never their secrets)
  api-key revoke ID          revoke an API key
  datastore create NAME [--description D]
                             create a datastore
  datastore list             list datastores
  datastore identities NAME [--set JSON]
                             show or declare which attributes hold which identity kind
  import --datastore D FILE.ndjson [--batch-size N] [--restart]
                             load entities from an NDJSON file, resumably
  user create USERNAME --role R [--role R ...]
                             create an operator account (password: first line of stdin)
  user list | user delete USERNAME
                             list or delete operator accounts
  request list [--status S] | request show ID | request approve ID... | request deny ID... --reason R
  request extend ID --reason R | request cancel ID [--reason R]
                             privacy requests
  report requests [--from DATE] [--to DATE]
                             the records of requests as CSV (no identity value)
  task list [--status S] [--assignee A] [--overdue] | task complete ID [--data JSON]
  task skip ID --reason R | task assign ID --to USERNAME | task invite ID [--email ADDRESS]
                             tasks of manual systems (docs/human-steps.md)
  policy list | connection list
                             DSR policies, connections (secrets masked)
  event-subscription list | put KEY --url U --event E --format F | delete KEY | rotate-secret KEY
  event-subscription deliveries KEY | redeliver KEY DELIVERY_ID
                             receivers of Lethe's events and their delivery logs (docs/events.md)
  digest send [--user U]     send the daily digest now

Listing commands print a table, or JSON with --json.

task, request and user commands act as the operator --as USERNAME (or LETHE_OPERATOR) names, with that
operator's roles, and are audited as that operator; without it, as the host's root (audited as cli).
The other commands (datastore, api-key, client, import, policy, connection, ...) always run as the host's
root: --as on them is refused; LETHE_OPERATOR is ignored by them.

Every command uses DATABASE_URL, or else the embedded PostgreSQL of LETHE_DATA_DIR: the server a running
lethe serve started, or one started for the duration of the command.
`;

const CLIENT_USAGE = `Usage: lethe client create [--name N] --scope S [--scope S ...]
`;

const WORKER_USAGE = `Usage: lethe serve|worker [--work W,...]

--work names what this process's worker does, of requests (privacy requests, with the retention job),
messages (the outbox's mail) and events (deliveries to event subscriptions); all three unless given.
E.g. lethe serve --work requests,messages beside lethe worker --work events on hosts of their own.
`;

const workNote = (work: WorkKind[] | undefined) => (work ? `, work: ${work.join(', ')}` : '');

/** The work `serve` or `worker` was given (--work), all of it by default. */
function workOf(argv: string[]): WorkKind[] | undefined {
  const { values } = parseCommandArguments(argv, { work: { type: 'string' } }, WORKER_USAGE);
  if (values.work === undefined) return undefined;
  const kinds = parseWorkKinds(values.work);
  if (typeof kinds === 'string') throw usageError(WORKER_USAGE, kinds);
  return kinds;
}

/** The usage text shown by \`lethe <command> --help\`, from the command's own module. */
const HELP: Record<string, () => Promise<string>> = {
  client: async () => CLIENT_USAGE,
  serve: async () => WORKER_USAGE,
  worker: async () => WORKER_USAGE,
  'api-key': async () => (await import('./api-key-command.ts')).API_KEY_USAGE,
  datastore: async () => (await import('./datastore-command.ts')).DATASTORE_USAGE,
  import: async () => (await import('./import-command.ts')).IMPORT_USAGE,
  user: async () => (await import('./user-command.ts')).USER_USAGE,
  request: async () => (await import('./request-command.ts')).REQUEST_USAGE,
  report: async () => (await import('./report-command.ts')).REPORT_USAGE,
  task: async () => (await import('./task-command.ts')).TASK_USAGE,
  policy: async () => (await import('./listing-command.ts')).POLICY_USAGE,
  connection: async () => (await import('./listing-command.ts')).CONNECTION_USAGE,
  'event-subscription': async () => (await import('./event-command.ts')).EVENT_SUBSCRIPTION_USAGE,
  digest: async () => (await import('./event-command.ts')).DIGEST_USAGE,
};

/** The first line of standard input (a password, never taken from the command line). */
async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** Opens the store for one operator command and always closes it. */
async function withServices<T>(config: Config, work: (services: Services) => Promise<T>): Promise<T> {
  const { createServices } = await import('../runtime/create-services.ts');
  const services = await createServices(config, (message) => process.stderr.write(`${message}\n`));
  try {
    return await work(services);
  } finally {
    await services.db.close();
  }
}

/**
 * Stops on the first SIGTERM or SIGINT and ignores the ones that follow until the stop is done. They come
 * in pairs often: npm forwards the signal to its script, so a Ctrl-C in a terminal or a SIGTERM to npm's
 * process group reaches this process twice. A signal with no listener left would end the process before it
 * stopped the embedded PostgreSQL, so the listeners stay until the exit. They are in place from the start
 * on: a Ctrl-C while the service starts stops it once it has started.
 */
function stopOnSignals(starting: Promise<RunningService>) {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stdout.write(`${signal} received; already stopping\n`);
      return;
    }
    stopping = true;
    process.stdout.write(`${signal} received; finishing in-flight work\n`);
    starting
      .then((running) => running.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`shutdown failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Operator commands run on the host with direct store access, so they act as the root client. */
async function createClient(config: Config, argv: string[]): Promise<number> {
  const { values } = parseCommandArguments(
    argv,
    { name: { type: 'string' }, scope: { type: 'string', multiple: true } },
    CLIENT_USAGE,
  );
  const scopes = values.scope ?? [];
  if (scopes.length === 0) {
    process.stderr.write(`lethe client create: give at least one --scope (${SCOPES.join(', ')})\n`);
    return 2;
  }
  const { createServices } = await import('../runtime/create-services.ts');
  const services = await createServices(config, (message) => process.stdout.write(`${message}\n`));
  try {
    const created = await services.auth.createClient(cliActor(), { name: values.name, scopes });
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
    return 0;
  } finally {
    await services.db.close();
  }
}

/** The commands that act as the operator `--as` names (acting-operator.ts); the others act as the host's root. */
const ACTING_COMMANDS = ['task', 'request', 'user'];

async function main(commandLine: string[]): Promise<number> {
  const { as, flagged, rest: argv } = takeActingOperator(commandLine);
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const [command, subcommand] = positionals;
  if (argv.includes('--help') || argv.includes('-h') || command === 'help') {
    const help = command ? HELP[command] : undefined;
    process.stdout.write(help ? await help() : USAGE);
    return 0;
  }
  if (flagged && !ACTING_COMMANDS.includes(command as string)) {
    throw new OperatorRefused(
      `--as applies to the ${ACTING_COMMANDS.join(', ')} commands only: ${command ? `"${command}"` : 'this command'} runs as the host's root (audited as cli), whose store it opens, and no operator's roles would change what it may do. Leave --as out.`,
    );
  }
  const config = loadConfig();
  const rest = argv.slice(argv.indexOf(command as string) + 1);
  switch (command) {
    case 'serve':
    case undefined: {
      // The generated root client is printed last, framed, so that start-up lines do not scroll it away.
      const credentials: string[] = [];
      const announce = (message: string) => {
        if (message.startsWith(ROOT_CLIENT_ANNOUNCEMENT)) credentials.push(message);
        else process.stdout.write(`${message}\n`);
      };
      const work = workOf(rest);
      const { startService } = await import('../runtime/start.ts');
      const starting = startService(config, { api: true, worker: true, work, announce });
      stopOnSignals(starting);
      const running = await starting;
      process.stdout.write(
        `Lethe listening on ${running.url} (store: ${running.services.db.kind}${workNote(work)})\n`,
      );
      for (const message of credentials) process.stdout.write(framed(message));
      return -1;
    }
    case 'worker': {
      const work = workOf(rest);
      const { startService } = await import('../runtime/start.ts');
      const starting = startService(config, { api: false, worker: true, work });
      stopOnSignals(starting);
      const running = await starting;
      process.stdout.write(`Lethe worker running (store: ${running.services.db.kind}${workNote(work)})\n`);
      return -1;
    }
    case 'migrate': {
      const [{ openDatabase }, { migrate }] = await Promise.all([
        import('../db/open.ts'),
        import('../db/migrate.ts'),
      ]);
      const db = await openDatabase(config);
      try {
        const applied = await migrate(db);
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'nothing to apply\n');
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'client':
      if (subcommand === 'create') return createClient(config, argv.slice(2));
      process.stderr.write(USAGE);
      return 2;
    case 'api-key': {
      const { parseApiKeyCommand, runApiKeyCommand } = await import('./api-key-command.ts');
      const parsed = parseApiKeyCommand(rest);
      process.stdout.write(await withServices(config, (services) => runApiKeyCommand(services, parsed)));
      return 0;
    }
    case 'datastore': {
      const { parseDatastoreCommand, runDatastoreCommand } = await import('./datastore-command.ts');
      const parsed = parseDatastoreCommand(rest);
      process.stdout.write(await withServices(config, (services) => runDatastoreCommand(services, parsed)));
      return 0;
    }
    case 'import': {
      const { parseImportCommand, runImportCommand } = await import('./import-command.ts');
      const parsed = parseImportCommand(rest);
      return withServices(config, (services) => runImportCommand(services, parsed));
    }
    case 'user': {
      const { parseUserCommand, runUserCommand } = await import('./user-command.ts');
      const parsed = parseUserCommand(rest);
      process.stdout.write(
        await withServices(config, (services) => runUserCommand(services, parsed, firstLineOfStdin, as)),
      );
      return 0;
    }
    case 'request': {
      const { parseRequestCommand, runRequestCommand } = await import('./request-command.ts');
      const parsed = parseRequestCommand(rest);
      // An approval queues the request's work, so the queue runs while the command does.
      const { output, ok } = await withServices(config, async (services) => {
        await services.queue.start((error) => process.stderr.write(`queue error: ${error.message}\n`));
        try {
          return await runRequestCommand(services, parsed, as);
        } finally {
          await services.queue.stop();
        }
      });
      process.stdout.write(output);
      return ok ? 0 : 1;
    }
    case 'report': {
      const { parseReportCommand, runReportCommand } = await import('./report-command.ts');
      const parsed = parseReportCommand(rest);
      await withServices(config, (services) => runReportCommand(services, parsed, process.stdout));
      return 0;
    }
    case 'task': {
      const { parseTaskCommand, runTaskCommand } = await import('./task-command.ts');
      const parsed = parseTaskCommand(rest);
      // Closing a request's last task queues its continuation, so the queue runs while the command does.
      const output = await withServices(config, async (services) => {
        await services.queue.start((error) => process.stderr.write(`queue error: ${error.message}\n`));
        try {
          return await runTaskCommand(services, parsed, as);
        } finally {
          await services.queue.stop();
        }
      });
      process.stdout.write(output);
      return 0;
    }
    case 'policy': {
      const { parseListCommand, POLICY_USAGE, runPolicyList } = await import('./listing-command.ts');
      const { json } = parseListCommand(rest, POLICY_USAGE);
      process.stdout.write(await withServices(config, (services) => runPolicyList(services, json)));
      return 0;
    }
    case 'connection': {
      const { parseListCommand, CONNECTION_USAGE, runConnectionList } = await import('./listing-command.ts');
      const { json } = parseListCommand(rest, CONNECTION_USAGE);
      process.stdout.write(await withServices(config, (services) => runConnectionList(services, json)));
      return 0;
    }
    case 'event-subscription': {
      const { parseEventSubscriptionCommand, runEventSubscriptionCommand } =
        await import('./event-command.ts');
      const parsed = parseEventSubscriptionCommand(rest);
      process.stdout.write(
        await withServices(config, (services) => runEventSubscriptionCommand(services, parsed)),
      );
      return 0;
    }
    case 'digest': {
      const { parseDigestCommand, runDigestCommand } = await import('./event-command.ts');
      const parsed = parseDigestCommand(rest);
      process.stdout.write(await withServices(config, (services) => runDigestCommand(services, parsed)));
      return 0;
    }
    default:
      process.stderr.write(`lethe: unknown command ${command}\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    // EmbeddedStoreError by its name: importing its module would load the store for every command.
    const embedded = error instanceof Error && error.name === 'EmbeddedStoreError';
    const usage = error instanceof ConfigError || error instanceof OperatorRefused;
    if (usage || error instanceof DomainError || embedded) {
      process.stderr.write(`lethe: ${(error as Error).message}\n`);
      // Bad arguments, environment or operator: 2, like usage errors; a refused action (unknown id, taken name): 1.
      process.exit(usage ? 2 : 1);
    }
    const taken = error as { code?: string; address?: string; port?: number } | null;
    if (taken?.code === 'EADDRINUSE') {
      // The first hour's usual stumble: a second `npm start` while the first still runs.
      process.stderr.write(
        `lethe: ${taken.address}:${taken.port} is already in use: is another Lethe running there? Stop it (Ctrl-C in its terminal) or start this one with another PORT.\n`,
      );
      process.exit(1);
    }
    process.stderr.write(
      `lethe: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
