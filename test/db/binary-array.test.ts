// bytea[] parameters sent as one binary Buffer (src/db/binary-array.ts) arrive as the same values.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { byteaArray } from '../../src/db/binary-array.ts';
import { testServerUrl } from '../helpers/database.ts';

describe('byteaArray', () => {
  let client: pg.Client;

  before(async () => {
    client = new pg.Client({ connectionString: await testServerUrl() });
    await client.connect();
  });

  after(async () => {
    await client.end();
  });

  async function roundTrip(values: (Buffer | null)[]): Promise<(Buffer | null)[]> {
    const { rows } = await client.query<{ value: Buffer | null }>(
      'SELECT value FROM unnest($1::bytea[]) WITH ORDINALITY AS t(value, position) ORDER BY position',
      [byteaArray(values)],
    );
    return rows.map((row) => row.value);
  }

  it('reads back every value in order, nulls and empty values included', async () => {
    const values = [Buffer.from([0, 1, 255]), null, Buffer.alloc(0), Buffer.from('sealed'), null];
    assert.deepEqual(await roundTrip(values), values);
  });

  it('reads back an empty array', async () => {
    const { rows } = await client.query<{ length: number | null; empty: boolean }>(
      "SELECT cardinality($1::bytea[]) AS length, $1::bytea[] = '{}'::bytea[] AS empty",
      [byteaArray([])],
    );
    assert.deepEqual(rows[0], { length: 0, empty: true });
  });

  it('reads back values from a view of a larger buffer (its own bytes only)', async () => {
    const whole = Buffer.from('0123456789');
    assert.deepEqual(await roundTrip([whole.subarray(2, 5)]), [Buffer.from('234')]);
  });
});
