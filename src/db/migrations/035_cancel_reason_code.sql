-- Cancel cannot refuse (docs/privacy-requests.md, "Canceling"): a request canceled after its identity was
-- verified (or made by an operator) carries why, as one of three codes; anything else is a denial. Lethe's
-- own cancels carry theirs: an identity never verified, or too many wrong codes, is `unverifiable`; a
-- duplicate of an open request is `duplicate`. The records count the unverifiable apart (CCPA regs §7102).
ALTER TABLE privacy_requests
  ADD COLUMN cancel_reason_code text
    CHECK (cancel_reason_code IS NULL OR cancel_reason_code IN ('subject_withdrew', 'duplicate', 'unverifiable'));

UPDATE privacy_requests SET cancel_reason_code = 'duplicate'
 WHERE status = 'canceled' AND duplicate_of IS NOT NULL;
UPDATE privacy_requests SET cancel_reason_code = 'unverifiable'
 WHERE status = 'canceled' AND duplicate_of IS NULL AND finalized_by = 'lethe'
   AND cancel_reason IN ('identity not verified in time', 'too many wrong codes');
