// Shared by the agents' tests: the subject's confirmation link, read from the mail a real SMTP server got.
import assert from 'node:assert/strict';
import type { CapturedMail } from '../helpers/subject-side.ts';

export function confirmLinkIn(mail: CapturedMail): string {
  const match = /(http:\/\/[^\s"<]+\/privacy-center\/confirm-agent\/[A-Za-z0-9_-]{43})/.exec(mail.text);
  assert.ok(match, 'the mail holds a confirmation link');
  return match[1] as string;
}
