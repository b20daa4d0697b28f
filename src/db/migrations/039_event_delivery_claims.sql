-- A claim of a delivery rewrites its row (its attempts and its lease, in next_attempt_at) and so does every
-- failed attempt that stays pending. With no index on next_attempt_at, those rewrites change no indexed
-- column, and with room left on each page (fillfactor) PostgreSQL makes them heap-only: no new entry in
-- any of the table's indexes. The claim does not need the index: it reads every pending delivery anyway,
-- through event_deliveries_order_idx, to keep each request's order (src/events/delivery-repository.ts).
DROP INDEX event_deliveries_due_idx;
ALTER TABLE event_deliveries SET (fillfactor = 80);
