-- The law, complete (docs/deadlines.md): when the receipt must be confirmed (CCPA regs §7021(a): 10 business
-- days, where the jurisdiction sets a time), watched like a stuck request; and a refusal recorded as late
-- when it came after the law's time to refuse (GDPR art. 12(4): one month from receipt).
ALTER TABLE privacy_requests
  ADD COLUMN acknowledge_due_at timestamptz,
  ADD COLUMN refused_late boolean NOT NULL DEFAULT false;
