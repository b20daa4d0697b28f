// How the operator commands print: an aligned text table for people, or `--json` for scripts. A table
// cell is one line (newlines become spaces), so a value can never forge a row.
import { randomUUID } from 'node:crypto';
import type { ChangeActor } from '../audit/audit-log.ts';
import { SCOPES } from '../auth/scopes.ts';

export type Cell = string | number | boolean | null | undefined;

export function formatTable(columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) =>
    columns.map((_, index) => String(row[index] ?? '-').replace(/[\r\n\t]+/g, ' ')),
  );
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...text.map((row) => (row[index] as string).length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index] as number)))
      .join('  ');
  return `${[line(columns.map((column) => column.toUpperCase())), ...text.map(line)].join('\n')}\n`;
}

/** A message inside a box of # lines, with a blank line before and after, so that it stands out. */
export function framed(message: string): string {
  const lines = message.split('\n');
  const width = Math.max(...lines.map((line) => line.length));
  const rule = '#'.repeat(width + 4);
  return `\n${rule}\n${lines.map((line) => `# ${line.padEnd(width)} #`).join('\n')}\n${rule}\n\n`;
}

export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Commands run on the host with direct store access, so they act with every scope. The audit log names
 * them `client:cli`, each run with its own request id.
 */
export function cliActor(): ChangeActor {
  return {
    principal: { clientId: 'cli', scopes: SCOPES, actsFor: 'client:cli' },
    requestId: `cli-${randomUUID()}`,
  };
}
