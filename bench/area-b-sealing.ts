// Measures what encryption at rest costs Area B per operation: sealing and opening an attribute value,
// its blind index, and a 256 KiB file chunk. Run: node bench/area-b-sealing.ts
import { randomBytes } from 'node:crypto';
import { Keyring } from '../src/crypto/keyring.ts';
import { CHUNK_BYTES } from '../src/datastore/file-store.ts';
import {
  blindIndex,
  openAttributeValue,
  openFileChunk,
  sealAttributeValue,
  sealFileChunk,
} from '../src/datastore/sealing.ts';

const keyring = new Keyring(randomBytes(32));
const entityId = '6f1c2a4e-8f0b-4c55-9a4e-0d2b7c1e9f00';

function measure(label: string, iterations: number, work: (index: number) => void, bytesPerOp = 0) {
  for (let index = 0; index < Math.min(1000, iterations); index += 1) work(index);
  const started = process.hrtime.bigint();
  for (let index = 0; index < iterations; index += 1) work(index);
  const nanos = Number(process.hrtime.bigint() - started);
  const perOp = nanos / iterations / 1000;
  const throughput = bytesPerOp
    ? `, ${((bytesPerOp * iterations) / (nanos / 1e9) / 2 ** 20).toFixed(0)} MiB/s`
    : '';
  process.stdout.write(`${label.padEnd(44)} ${perOp.toFixed(2).padStart(9)} µs/op${throughput}\n`);
  return perOp;
}

const email = 'ada.lovelace@example.com';
const sealed = sealAttributeValue(keyring, 'shop', entityId, 'email', email);
const chunk = randomBytes(CHUNK_BYTES);
const sealedChunk = sealFileChunk(keyring, 'shop', entityId, 0, chunk);

measure('seal attribute value (AES-256-GCM)', 50_000, () =>
  sealAttributeValue(keyring, 'shop', entityId, 'email', email),
);
measure('open attribute value', 50_000, () => openAttributeValue(keyring, 'shop', entityId, 'email', sealed));
measure('blind index (normalise + HMAC-SHA-256)', 50_000, () => blindIndex(keyring, 'shop', email));
measure(
  'seal 256 KiB file chunk',
  500,
  (index) => sealFileChunk(keyring, 'shop', entityId, index, chunk),
  CHUNK_BYTES,
);
measure(
  'open 256 KiB file chunk',
  500,
  () => openFileChunk(keyring, 'shop', entityId, 0, [sealedChunk]),
  CHUNK_BYTES,
);
