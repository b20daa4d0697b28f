// An upload cut into the fixed-size chunks that sealed files are kept in (one bytea row a chunk: entity
// files, src/datastore/file-store.ts; attachments, src/notes/service.ts), as its stream arrives, so that a
// file is never whole in memory. It writes nothing itself: each chunk goes to the caller's `write`.

/**
 * Copies the pieces of `source` into one buffer of `chunkBytes`, reused for every chunk (joining the pieces
 * per chunk made 256 KiB and more of dead buffers a chunk), and hands each full chunk to `write` in order;
 * `write` must copy out what it keeps (sealing does). Past `maxBytes` it stops writing and reads the rest
 * of the source to its end, so that the client gets the answer, and answers `overLimit` without writing the
 * last chunk; otherwise the last, shorter chunk is written too.
 */
export async function writeInChunks(
  source: AsyncIterable<Buffer>,
  options: { chunkBytes: number; maxBytes: number },
  write: (bytes: Buffer) => Promise<void>,
): Promise<{ overLimit: boolean; size: number }> {
  const chunk = Buffer.alloc(options.chunkBytes);
  let filled = 0;
  let size = 0;
  let overLimit = false;
  for await (const piece of source) {
    if (overLimit) continue;
    size += piece.length;
    if (size > options.maxBytes) {
      overLimit = true;
      continue;
    }
    for (let offset = 0; offset < piece.length;) {
      const copied = piece.copy(chunk, filled, offset);
      offset += copied;
      filled += copied;
      if (filled === options.chunkBytes) {
        await write(chunk);
        filled = 0;
      }
    }
  }
  if (overLimit) return { overLimit, size };
  if (filled > 0) await write(chunk.subarray(0, filled));
  return { overLimit, size };
}
