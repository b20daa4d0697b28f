// What a worker does, for `lethe serve` and `lethe worker` (--work) and for startService: run privacy
// requests (with the retention job and the entity layout's move), send the outbox's messages, deliver
// events. A process does all three unless told otherwise: `lethe worker --work events` on hosts of their
// own keeps receivers' calls off the processes that run the requests (docs/operations.md).
export const WORK_KINDS = ['requests', 'messages', 'events'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** The kinds a `--work` value names (comma-separated), or why it names none of them. */
export function parseWorkKinds(value: string): WorkKind[] | string {
  const named = value.split(',').map((part) => part.trim());
  const unknown = named.filter((part) => !(WORK_KINDS as readonly string[]).includes(part));
  if (unknown.length > 0)
    return `--work takes a comma-separated list of ${WORK_KINDS.join(', ')}; not ${unknown.map((part) => JSON.stringify(part)).join(', ')}`;
  return [...new Set(named)] as WorkKind[];
}
