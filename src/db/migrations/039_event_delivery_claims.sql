-- A claim of a delivery rewrites its row (its attempts and its lease, in next_attempt_at) and so does every
-- failed attempt that stays pending. With no index on next_attempt_at, those rewrites change no indexed
-- column, and with room left on each page (fillfactor) PostgreSQL makes them heap-only: no new entry in
-- any of the table's indexes. The claim does not need the index: it reads every pending delivery anyway,
-- through event_deliveries_order_idx, to keep each request's order (src/events/delivery-repository.ts).
DROP INDEX event_deliveries_due_idx;
ALTER TABLE event_deliveries SET (fillfactor = 80);

-- /metrics counts each subscription's pending and failed deliveries at every scrape: pending ones through
-- event_deliveries_order_idx, failed ones (few: given up after 24 hours) through this one, never reading
-- the delivered ones, which the delivery log keeps and which grow without end.
CREATE INDEX event_deliveries_failed_idx ON event_deliveries (subscription_key) WHERE state = 'failed';
