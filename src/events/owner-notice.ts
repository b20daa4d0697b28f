// The mail that tells the owners (operators with the `owner` role and an address) that an event
// subscription was disabled after failing 50 times in a row, queued in the outbox in the transaction
// that disabled it. It names the subscription and how to turn it on again; no event's content.
import type { Queryable } from '../db/database.ts';
import { enqueueMessages } from '../outbox/enqueue.ts';
import type { Services } from '../services.ts';
import { escapeHtml } from '../validation/html.ts';
import { isEmailAddress } from '../validation/email.ts';

/** The operators matching `where`, with their address: their email, else their username when it is one. */
export async function operatorAddresses(db: Queryable, where: string, params: unknown[]) {
  const { rows } = await db.query<{ username: string; email: string | null }>(
    `SELECT username, email FROM operators WHERE ${where} ORDER BY username`,
    params,
  );
  return rows.flatMap((row) => {
    const address = row.email ?? (isEmailAddress(row.username) ? row.username : null);
    return address === null ? [] : [{ username: row.username, address }];
  });
}

export async function tellOwnersOfDisabledSubscription(
  tx: Queryable,
  services: Pick<Services, 'keyring'>,
  key: string,
  failures: number,
): Promise<void> {
  const owners = await operatorAddresses(tx, `'owner' = ANY (roles)`, []);
  const subject = `Lethe disabled the event subscription ${key}`;
  const text = `The event subscription ${key} failed ${failures} times in a row and is now disabled: no more events go to it.\n\nSee its delivery log (GET /v1/event-subscription/${key}/delivery), fix the receiver, then enable it again (PUT /v1/event-subscription/${key} with "enabled": true) and redeliver what it missed.\n`;
  const html = `<p>The event subscription <b>${escapeHtml(key)}</b> failed ${failures} times in a row and is now disabled: no more events go to it.</p><p>See its delivery log, fix the receiver, then enable it again and redeliver what it missed.</p>`;
  await enqueueMessages(
    tx,
    services.keyring,
    owners.map(({ address }) => ({
      privacyRequestId: null,
      kind: 'event_subscription_disabled' as const,
      to: address,
      subject,
      text,
      html,
    })),
  );
}
