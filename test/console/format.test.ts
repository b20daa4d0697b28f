// The console's display rules that protect or inform: identity masking (what a list may show of a data
// subject), deadline wording and durations. Pure functions of console/src/format.ts, run under Node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  closedText,
  daysLeftText,
  deadlineText,
  formatDuration,
  maskEmail,
  maskedIdentity,
  maskPhone,
  maskText,
} from '../../console/src/format.ts';
import type { PrivacyRequest } from '../../console/src/schema.ts';

test('emails keep their first letter and domain only', () => {
  assert.equal(maskEmail('jane.doe@example.com'), 'j***@example.com');
  assert.equal(maskEmail('J@EXAMPLE.org'), 'J***@EXAMPLE.org');
  assert.equal(maskEmail('odd"local@part"@example.com'), 'o***@example.com');
  assert.equal(maskEmail('not-an-email'), 'n***');
  assert.equal(maskEmail('@example.com'), '@***');
});

test('phone numbers keep their last two digits only', () => {
  assert.equal(maskPhone('+4915112345678'), '+***78');
  assert.equal(maskPhone('030 1234 5699'), '***99');
  assert.equal(maskPhone('12'), '***');
});

test('other identities keep one character; empty ones are left out', () => {
  assert.equal(maskText('x'), '***');
  assert.equal(
    maskedIdentity({
      email: 'jane.doe@example.com',
      phone_number: '+4915112345678',
      customer_id: { label: 'Customer id', value: 'C-991234' },
      loyalty: 'L77',
      empty: '',
      missing: null,
    }),
    'j***@example.com, +***78, Customer id C***, loyalty L***',
  );
  assert.equal(maskedIdentity({}), '');
  assert.equal(maskedIdentity(null), '');
  const rendered = maskedIdentity({ email: 'jane.doe@example.com', phone_number: '+4915112345678' });
  for (const secret of ['jane.doe', '12345678', 'C-991234']) assert.ok(!rendered.includes(secret));
});

test('deadlines and durations read as words', () => {
  assert.equal(daysLeftText(12), '12 days left');
  assert.equal(daysLeftText(1), '1 day left');
  assert.equal(daysLeftText(0), 'due today');
  assert.equal(daysLeftText(-1), '1 day overdue');
  assert.equal(daysLeftText(-3), '3 days overdue');
  assert.equal(daysLeftText(null), '—');
  assert.equal(formatDuration(43), '43 ms');
  assert.equal(formatDuration(12_400), '12 s');
  assert.equal(formatDuration(185_000), '3 min 05 s');
  assert.equal(formatDuration(3_720_000), '1 h 02 min');
});

test('a closed request says how long it took; an open one (error included) counts down', () => {
  // The fields the deadline and duration texts read; the rest of a PrivacyRequest does not matter here.
  const request = (status: PrivacyRequest['status'], changes: Partial<PrivacyRequest> = {}): PrivacyRequest =>
    ({
      id: 'pri_1',
      external_id: null,
      status,
      requested_at: '2026-03-01T10:00:00.000Z',
      started_processing_at: null,
      finished_processing_at: null,
      reviewed_at: null,
      reviewed_by: null,
      paused_at: null,
      due_date: '2026-04-15T10:00:00.000Z',
      days_left: 12,
      policy_id: 'pol_1',
      ...changes,
    }) as PrivacyRequest;
  assert.equal(
    closedText(request('complete', { finished_processing_at: '2026-03-04T11:00:00.000Z' })),
    'completed in 3 days',
  );
  assert.equal(
    closedText(request('complete', { finished_processing_at: '2026-03-02T10:00:00.000Z' })),
    'completed in 1 day',
  );
  assert.equal(
    closedText(request('denied', { reviewed_at: '2026-03-01T12:00:00.000Z' })),
    'denied within a day',
  );
  assert.equal(
    closedText(request('canceled', { canceled_at: '2026-03-21T10:00:00.000Z' })),
    'canceled in 20 days',
  );
  assert.equal(closedText(request('complete')), 'completed');
  for (const open of ['pending', 'approved', 'in_processing', 'paused', 'error'] as const) {
    assert.equal(closedText(request(open)), undefined, open);
    assert.equal(deadlineText(request(open)), '12 days left', open);
  }
  assert.equal(
    deadlineText(request('complete', { finished_processing_at: '2026-03-04T11:00:00.000Z' })),
    'completed in 3 days',
  );
});
