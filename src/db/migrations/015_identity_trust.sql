-- Whom Lethe acts for: the identity values of a public request that nobody has verified are sealed apart
-- from `identity_sealed` (which the rule run matches and callbacks send as `identity`), and the caps on
-- guessing codes and on mail bombing are counted here, where every API process sees them.

-- {email?, phone_number?} given on the public side and not (yet) proved, sealed like identity_sealed
-- (the identity-cache key, bound to the request id, under its own associated data).
ALTER TABLE privacy_requests ADD COLUMN unverified_identity_sealed bytea;
-- HMAC of the lower-cased email a code goes to, while the request awaits verification: the count of open
-- unverified requests per recipient. Cleared when the request leaves identity_unverified.
ALTER TABLE privacy_requests ADD COLUMN recipient_index bytea;
CREATE INDEX privacy_requests_recipient_idx ON privacy_requests (recipient_index)
  WHERE status = 'identity_unverified';

-- Over a request's whole life: wrong codes (10 cancel it) and codes sent again (at most 3).
ALTER TABLE identity_verifications ADD COLUMN wrong_codes_total integer NOT NULL DEFAULT 0
  CHECK (wrong_codes_total >= 0);
ALTER TABLE identity_verifications ADD COLUMN resends integer NOT NULL DEFAULT 0 CHECK (resends >= 0);

-- Every code mail, by recipient (the HMAC above), for the cap of 5 an hour; rows older than an hour go.
CREATE TABLE verification_code_mails (
  recipient_index bytea NOT NULL,
  sent_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verification_code_mails_recipient_idx ON verification_code_mails (recipient_index, sent_at);
