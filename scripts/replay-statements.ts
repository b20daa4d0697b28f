// `node scripts/replay-statements.ts FILE`: prepares on the server LETHE_TEST_DATABASE_URL names (CI: the
// machine's PostgreSQL 15) every statement the embedded run recorded in FILE (LETHE_RECORD_STATEMENTS; see
// test/helpers/statement-replay.ts), on a fresh copy of the migrated schema. Exits 1 naming each statement
// refused, and when the recording is too small to be one of the whole suite.
import { readFile } from 'node:fs/promises';
import { createTestDatabase, ensureTemplate, testServerUrl } from '../test/helpers/database.ts';
import { prepareEach, type RecordedStatements } from '../test/helpers/statement-replay.ts';

/** The suite sends well over this many distinct statements; fewer means the recording did not work. */
const FEWEST_EXPECTED = 550;

const file = process.argv[2];
if (!file || !process.env.LETHE_TEST_DATABASE_URL) {
  process.stderr.write(
    'usage: LETHE_TEST_DATABASE_URL=postgres://... node scripts/replay-statements.ts FILE\n',
  );
  process.exit(2);
}
const recorded = JSON.parse(await readFile(file, 'utf8')) as RecordedStatements;
if (recorded.statements.length < FEWEST_EXPECTED) {
  process.stderr.write(
    `${file} holds ${recorded.statements.length} statements, fewer than the ${FEWEST_EXPECTED} a whole run sends: was the suite run with LETHE_RECORD_STATEMENTS on the embedded server?\n`,
  );
  process.exit(1);
}
await ensureTemplate(await testServerUrl());
const schema = await createTestDatabase();
try {
  const { prepared, refused } = await prepareEach(schema.url, recorded.statements);
  const server = new URL(process.env.LETHE_TEST_DATABASE_URL).host;
  process.stdout.write(
    `${prepared.length} of ${recorded.statements.length} recorded statements prepare on ${server} (${recorded.seen - recorded.statements.length} of the ${recorded.seen} seen were refused by the recording server too: they name what a test made, or the types of their parameters came from the values pg_stat_statements took out)\n`,
  );
  for (const { sql, message } of refused) process.stderr.write(`refused: ${message}\n  ${sql}\n`);
  if (refused.length > 0) process.exitCode = 1;
} finally {
  await schema.drop();
}
