-- Corrections are published, not probed (issue 34, item 7): an update rule's targets name what the public
-- may correct, `<table>.<attribute>` or `<table>.*`, and the policy service refuses an update rule without
-- them or with `*`. An update rule stored before took the default `{*}`, which meant nothing then; it now
-- publishes nothing until an operator names its targets: a correction to any attribute gets the one
-- refusal ("... cannot be corrected here"), and a run writes only what its rules publish. No policy
-- Lethe ships has an update rule (migration 002 seeds access and erasure only), so nothing shipped changes.
UPDATE rules SET targets = array_remove(targets, '*') WHERE action_type = 'update';
