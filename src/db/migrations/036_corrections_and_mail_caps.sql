-- Corrections are published, not probed (issue 34, item 7): an update rule's targets name what the public
-- may correct, `<table>.<attribute>` or `<table>.*`, and the policy service refuses an update rule without
-- them or with `*`. An update rule stored before took the default `{*}`, which meant nothing then; it now
-- publishes nothing until an operator names its targets: a correction to any attribute gets the one
-- refusal ("... cannot be corrected here"), and a run writes only what its rules publish. No policy
-- Lethe ships has an update rule (migration 002 seeds access and erasure only), so nothing shipped changes.
UPDATE rules SET targets = array_remove(targets, '*') WHERE action_type = 'update';

-- Every mail to a subject's address counts against its hourly cap (issue 34, item 5): the caps moved to the
-- outbox (src/outbox/recipient-caps.ts) under their own key, `mail-recipient`. The mails counted under the
-- earlier key can no longer be matched to a recipient: they are dropped (at upgrade, an address's hour
-- starts afresh). A request awaiting verification keeps its earlier index, which no longer counts against
-- the 3 open requests of its address; it is canceled when its code expires, as before.
DELETE FROM verification_code_mails;
