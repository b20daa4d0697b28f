// LISTEN on one channel over a connection of its own (a pool's connections come and go, a listener must
// stay): a lost connection is logged and opened again after a second, for as long as the caller has not
// stopped it. Callers see our names; only db/ speaks to the driver.
import pg from 'pg';

const RELISTEN_DELAY_MS = 1000;

/** The two log lines a listener may write (a Fastify or pino logger fits). */
export interface ListenerLog {
  warn(details: { err: unknown }, message: string): void;
}

export interface ChannelHandlers {
  /** Each time a connection starts listening (the first and every one after a loss). */
  onListening(): void;
  onNotification(payload: string | undefined): void;
}

/** Answers the function that stops listening and closes the connection. */
export function listenToChannel(
  connectionString: string,
  channel: string,
  log: ListenerLog,
  handlers: ChannelHandlers,
): () => Promise<void> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString });
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload);
    });
    next.on('error', (error) => {
      log.warn({ err: error }, `listener on ${channel} lost its connection`);
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      log.warn({ err: error }, `listener on ${channel} could not connect`);
      await next.end().catch(() => undefined);
      schedule();
      return;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    handlers.onListening();
    client = next;
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RELISTEN_DELAY_MS);
    retry.unref();
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
    client = undefined;
  };
}
