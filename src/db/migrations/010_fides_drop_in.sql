-- Fides drop-in: an HTTPS connection's secrets may carry extra callback headers ({name: value}, at most 20).
-- The values are sealed as one JSON object like the authorization value (associated data
-- connection:<key>:headers); the names are kept in clear, like the URL, so answers can list them masked.
ALTER TABLE connections
  ADD COLUMN secrets_headers_sealed bytea,
  ADD COLUMN secrets_header_names text[];
