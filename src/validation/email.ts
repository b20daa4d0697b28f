// The one email check of the service. It is deliberately plain (one @, no blank, a dot inside the
// domain): deliverability is not ours to judge. It runs on attacker-controlled text (API-key holders,
// public submitters, webhook receivers, reply-token holders), so it bounds the length first and then
// reads the value a constant number of times: no regular expression with quantifiers that can backtrack.

/** RFC 5321 caps a forward path at 256 octets; 320 (64 + 1 + 255) is the common generous bound. */
export const MAX_EMAIL_LENGTH = 320;

const BLANK = /\s/;

export function isEmailAddress(value: string): boolean {
  if (value.length === 0 || value.length > MAX_EMAIL_LENGTH) return false;
  const at = value.indexOf('@');
  if (at <= 0 || value.indexOf('@', at + 1) !== -1) return false;
  if (BLANK.test(value)) return false;
  const domain = value.slice(at + 1);
  const innerDot = domain.indexOf('.', 1);
  return innerDot !== -1 && innerDot < domain.length - 1;
}
