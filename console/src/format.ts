// Display helpers: masked identities, dates and durations. Masking happens before anything is rendered,
// so a full email or phone number never reaches the page's DOM in list views.
import type { IdentityValue, PrivacyRequest } from './schema.ts';

export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return maskText(email);
  return `${email[0]}***${email.slice(at)}`;
}

export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 2) return '***';
  return `${phone.startsWith('+') ? '+' : ''}***${digits.slice(-2)}`;
}

export function maskText(value: string): string {
  return value.length <= 1 ? '***' : `${value[0]}***`;
}

/** The request's identities, masked, as "email j***@example.com, phone +***89". */
export function maskedIdentity(identity: PrivacyRequest['identity'] | null | undefined): string {
  if (!identity) return '';
  const parts: string[] = [];
  for (const [name, raw] of Object.entries(identity)) {
    if (raw === null || raw === undefined || raw === '') continue;
    const value = typeof raw === 'string' ? raw : (raw as IdentityValue).value;
    if (!value) continue;
    if (name === 'email') parts.push(maskEmail(value));
    else if (name === 'phone_number') parts.push(maskPhone(value));
    else
      parts.push(
        `${typeof raw === 'string' ? name : ((raw as IdentityValue).label ?? name)} ${maskText(value)}`,
      );
  }
  return parts.join(', ');
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const clockTime = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hour12: false,
});

export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateOnly.format(date);
}

/** "10:58:07.412": the time of day to the millisecond, for steps that follow each other closely. */
export function formatClockTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : clockTime.format(date);
}

/** "1 h 02 min", "3 min 05 s", "12 s", "43 ms" */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.max(0, Math.round(milliseconds))} ms`;
  const seconds = Math.floor(milliseconds / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
  if (minutes > 0) return `${minutes} min ${String(rest).padStart(2, '0')} s`;
  return `${rest} s`;
}

/** Statuses a request has left the queue of work in: answered, refused or withdrawn. */
export const CLOSED_STATUSES = new Set(['complete', 'denied', 'canceled']);

const DAY_MS = 24 * 60 * 60 * 1000;

/** When a closed request was closed: completion, denial or cancellation (undefined while it is open). */
export function closedAt(request: PrivacyRequest): string | undefined {
  if (!CLOSED_STATUSES.has(request.status)) return undefined;
  const at =
    request.status === 'canceled'
      ? request.canceled_at
      : request.status === 'denied'
        ? (request.reviewed_at ?? request.finalized_at)
        : (request.finished_processing_at ?? request.finalized_at);
  return at ?? undefined;
}

/** "completed in 3 days", "denied within a day", "canceled in 12 days": how long a closed request took. */
export function closedText(request: PrivacyRequest): string | undefined {
  const at = closedAt(request);
  if (!CLOSED_STATUSES.has(request.status)) return undefined;
  const verb = request.status === 'complete' ? 'completed' : request.status;
  if (!at) return verb;
  const days = Math.floor((new Date(at).getTime() - new Date(request.requested_at).getTime()) / DAY_MS);
  if (!(days >= 1)) return `${verb} within a day`;
  return `${verb} in ${days} day${days === 1 ? '' : 's'}`;
}

/** The deadline column: days left for an open request, how long it took for a closed one. */
export function deadlineText(request: PrivacyRequest): string {
  return closedText(request) ?? daysLeftText(request.days_left);
}

export function daysLeftText(days: number | null | undefined): string {
  if (days === null || days === undefined) return '—';
  if (days < 0) return `${-days} day${days === -1 ? '' : 's'} overdue`;
  if (days === 0) return 'due today';
  return `${days} day${days === 1 ? '' : 's'} left`;
}

export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}
