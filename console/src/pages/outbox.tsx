// The outbox: every message to data subjects, newest first, with its delivery state. Without an SMTP server
// (LETHE_SMTP_URL unset) this is where an operator trying Lethe reads the verification code and the
// download link. Refreshes itself every few seconds.
import { useState } from 'react';
import { Link } from 'wouter';
import { Empty, ErrorNotice, Loading, PageHeader, Pager } from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import { answer } from '../api.ts';
import type { OutboxMessage } from '../schema.ts';

const PAGE_SIZE = 20;
const KIND_LABELS: Record<OutboxMessage['kind'], string> = {
  verification_code: 'Verification code',
  received: 'Received',
  denied: 'Denied',
  completed: 'Completed',
  canceled: 'Canceled',
  extended: 'Extended',
  appeal_upheld: 'Appeal upheld',
  respondent_invite: 'Respondent invite',
  task_overdue: 'Task overdue',
  subject_note: 'Note to the subject',
  agent_confirmation: 'Confirm the agent',
  event_digest: 'Daily digest',
  event_subscription_disabled: 'Event subscription disabled',
};

export function OutboxPage() {
  const { api } = useSession();
  const [page, setPage] = useState(1);
  const outbox = useResource(
    () => answer(api.GET('/v1/outbox', { params: { query: { page, size: PAGE_SIZE } } })),
    String(page),
    3000,
  );
  return (
    <>
      <PageHeader title="Outbox" />
      <p>
        Messages to data subjects. They are sent by the worker when <code>LETHE_SMTP_URL</code> is set;
        otherwise they wait here. Codes and download links show to owners only, and a sent message keeps no
        text.
      </p>
      <ErrorNotice message={outbox.error} />
      {outbox.loading && !outbox.data ? (
        <Loading what="the outbox" />
      ) : outbox.data && outbox.data.items.length === 0 ? (
        <Empty>No message yet.</Empty>
      ) : outbox.data ? (
        <>
          <ul className="messages">
            {outbox.data.items.map((message) => (
              <li key={message.id} className="card">
                <h2>
                  {KIND_LABELS[message.kind]}: {message.subject}
                </h2>
                <p className="hint">
                  {formatDateTime(message.created_at)} · to {message.to} ·{' '}
                  {message.state === 'sent'
                    ? `sent ${formatDateTime(message.sent_at)}`
                    : message.attempts === 0
                      ? 'not sent'
                      : `not sent after ${message.attempts} attempt(s)${message.last_error ? `: ${message.last_error}` : ''}`}
                  {message.privacy_request_id ? (
                    <>
                      {' '}
                      · request{' '}
                      <Link href={`/requests/${message.privacy_request_id}`}>
                        {message.privacy_request_id}
                      </Link>
                    </>
                  ) : null}
                </p>
                {message.body_purged ? (
                  <p className="hint">Text removed after delivery.</p>
                ) : (
                  <details>
                    <summary>Message text</summary>
                    <pre className="message-text">{message.text}</pre>
                  </details>
                )}
              </li>
            ))}
          </ul>
          <Pager page={page} size={PAGE_SIZE} total={outbox.data.total} onPage={setPage} />
        </>
      ) : null}
    </>
  );
}
