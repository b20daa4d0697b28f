// bytea[] parameters in PostgreSQL's binary array format (what array_recv reads). pg sends a Buffer
// parameter as binary but turns any array into a text literal: an array of Buffers went out as
// '{"\\\\x0a1b…",…}', every value written as hex into a growing string, a fifth of all that an
// entity/create of 100 entities allocated (bench/README.md, issue 29). As one Buffer, each value is copied
// once. The statement must cast the parameter (`$4::bytea[]`), so that the server reads it as bytea[].
const BYTEA_OID = 17;
/** ndim, the has-nulls flag and the element type; then, for one dimension, its length and lower bound. */
const HEADER_BYTES = 12;
const DIMENSION_BYTES = 8;
const LENGTH_BYTES = 4;
const NULL_LENGTH = -1;

export function byteaArray(values: readonly (Uint8Array | null)[]): Buffer {
  const dimensions = values.length === 0 ? 0 : 1;
  let size = HEADER_BYTES + dimensions * DIMENSION_BYTES;
  for (const value of values) size += LENGTH_BYTES + (value?.byteLength ?? 0);
  const array = Buffer.allocUnsafe(size);
  let offset = array.writeInt32BE(dimensions, 0);
  offset = array.writeInt32BE(values.includes(null) ? 1 : 0, offset);
  offset = array.writeUInt32BE(BYTEA_OID, offset);
  if (dimensions === 1) {
    offset = array.writeInt32BE(values.length, offset);
    offset = array.writeInt32BE(1, offset);
  }
  for (const value of values) {
    offset = array.writeInt32BE(value === null ? NULL_LENGTH : value.byteLength, offset);
    if (value === null) continue;
    array.set(value, offset);
    offset += value.byteLength;
  }
  return array;
}
