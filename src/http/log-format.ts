// How the API's log reads: JSON lines (pino's) when stdout is a file, a pipe or a log collector, and one
// short human line per entry when it is a terminal (`12:04:05 INFO  POST /v1/login 200 12 ms`). Only the
// format changes, never what is logged: the fields are the ones the JSON carries (no header, no body).
const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

interface Entry {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
}

/** One JSON log line as a human line (the line itself when it is not pino's JSON). */
export function formatLogLine(line: string): string {
  let entry: Entry;
  try {
    entry = JSON.parse(line) as Entry;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const time = new Date(entry.time ?? Date.now()).toISOString().slice(11, 19);
  const level = LEVELS[entry.level ?? 30] ?? String(entry.level);
  const parts = [time, level];
  if (entry.req?.method) parts.push(`${entry.req.method} ${entry.req.url ?? ''}`);
  if (entry.res?.statusCode !== undefined) parts.push(String(entry.res.statusCode));
  if (entry.responseTime !== undefined) parts.push(`${Math.round(entry.responseTime)} ms`);
  if (entry.msg && !(entry.req || entry.res)) parts.push(entry.msg);
  if (entry.err?.message && entry.err.message !== entry.msg) parts.push(`(${entry.err.message})`);
  if (entry.reqId && (entry.level ?? 30) >= 40) parts.push(`[${entry.reqId}]`);
  return `${parts.join(' ')}\n`;
}

/** The logger's destination: the human format on a terminal, pino's JSON (its default) otherwise. */
export function terminalLogStream(
  out: { isTTY?: boolean; write(text: string): unknown } = process.stdout,
): { stream: { write(line: string): void } } | Record<string, never> {
  if (!out.isTTY) return {};
  return { stream: { write: (line: string) => void out.write(formatLogLine(line)) } };
}
