-- The default policies' jurisdiction (issue 37, docs/deadlines.md "The default policies"): EU, so that a
-- fresh install never gives a European more than the GDPR's month. It is a fallback: a request whose
-- location names a place with its own law runs on that law (US-CA: 45 days), and one from a place with no
-- law (JP) keeps the EU's month, the strictest clock Lethe knows, never a longer one. Only a default policy
-- whose jurisdiction was never set is changed; an operator's choice stays.
UPDATE policies SET jurisdiction = 'EU'
 WHERE key IN ('default_access_policy', 'default_erasure_policy') AND jurisdiction IS NULL;
