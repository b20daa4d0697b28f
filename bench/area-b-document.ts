// The entity's document sealed per attribute (what migration 029 stores) against sealed as one box, on the
// API's side of a read and a write: the CPU to turn the row pg hands over into the answer's attributes,
// the CPU to seal a new entity's values, and the bytes stored. Run: node bench/area-b-document.ts
// (bench/README.md, "The entity as one document", says what was chosen and why).
import { randomBytes } from 'node:crypto';
import { Keyring } from '../src/crypto/keyring.ts';
import { openText, seal } from '../src/crypto/secret-box.ts';
import { openEntity, sealedText } from '../src/datastore/entity-document.ts';
import { sealAttributeValue } from '../src/datastore/sealing.ts';
import { benchUser } from './lib/seed.ts';

const keyring = new Keyring(randomBytes(32));
const datastore = 'bench';
const entityId = '6f1c2a4e-8f0b-4c55-9a4e-0d2b7c1e9f00';
const valueKey = keyring.secretKey(`datastore-values:${datastore}`);

function measure(label: string, iterations: number, work: () => unknown): number {
  for (let index = 0; index < 2000; index += 1) work();
  const started = process.hrtime.bigint();
  for (let index = 0; index < iterations; index += 1) work();
  const perOp = Number(process.hrtime.bigint() - started) / iterations / 1000;
  process.stdout.write(`${label.padEnd(58)} ${perOp.toFixed(2).padStart(8)} µs\n`);
  return perOp;
}

for (const count of [5, 20]) {
  const attributes = Array.from(
    { length: count },
    (_, index) => benchUser(index % 5).attributes[index % 5],
  ).map((attribute, index) => ({ name: `${attribute?.name}_${index}`, value: attribute?.value ?? null }));
  // Per attribute: {name: base64 box}, each box bound to <entity>:<name> (what pg parses from jsonb).
  const perAttribute = JSON.stringify(
    Object.fromEntries(
      attributes.map(({ name, value }) => [
        name,
        sealedText(sealAttributeValue(keyring, datastore, entityId, name, value as string)),
      ]),
    ),
  );
  // Per document: one box of {name: value}, bound to the entity, as base64 text in a bytea column.
  const plain = JSON.stringify(Object.fromEntries(attributes.map(({ name, value }) => [name, value])));
  const perDocument = seal(valueKey, plain, entityId).toString('hex');
  process.stdout.write(
    `\n${count} attributes: stored ${perAttribute.length} bytes per attribute, ${perDocument.length / 2} bytes as one box\n`,
  );
  const row = { id: entityId, name: 'user', created_at: new Date(), parents: [], files: [] };
  measure('read, per attribute: parse the jsonb, open each value', 100_000, () =>
    openEntity(keyring, datastore, { ...row, attributes: JSON.parse(perAttribute) }),
  );
  measure('read, one box: parse the bytea, open it, parse the values', 100_000, () => {
    const values = JSON.parse(openText(valueKey, Buffer.from(perDocument, 'hex'), entityId)) as Record<
      string,
      string | null
    >;
    return Object.keys(values)
      .sort()
      .map((name) => ({ name, value: values[name] }));
  });
  measure('write, per attribute: seal each value', 100_000, () =>
    attributes.map(({ name, value }) =>
      sealAttributeValue(keyring, datastore, entityId, name, value as string),
    ),
  );
  measure('write, one box: seal the document', 100_000, () =>
    seal(valueKey, JSON.stringify(plain), entityId),
  );
}
