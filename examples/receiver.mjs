// A tiny webhook receiver for trying Lethe by hand. No dependencies: `node examples/receiver.mjs`.
//
// - two_way pre-execution calls (they carry `reply-to` and `reply-to-token`): answers {"halt": true},
//   then after RESUME_AFTER_MS resumes the request by POSTing to LETHE_URL + reply-to with the token;
//   with DERIVED_PHONE set, the resume body carries it as a derived identity.
// - pre-approval calls (`reply-to-eligible`): answers 200, then calls the eligible URL with the token.
// - everything else: answers 200 with an empty body.
// With LETHE_SIGNING_SECRET set (the connection's whsec_ secret, shown once when it was created), every
// call's Lethe-Signature is checked and a bad one is answered 401.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const PORT = Number(process.env.PORT ?? 9000);
const LETHE_URL = process.env.LETHE_URL ?? 'http://127.0.0.1:8080';
const RESUME_AFTER_MS = Number(process.env.RESUME_AFTER_MS ?? 5000);
const DERIVED_PHONE = process.env.DERIVED_PHONE;
const SIGNING_SECRET = process.env.LETHE_SIGNING_SECRET;
const log = (line) => process.stdout.write(`${line}\n`);

function signatureIsValid(header, rawBody) {
  const entries = String(header ?? '')
    .split(',')
    .map((entry) => entry.trim().split('='));
  const timestamp = entries.find(([name]) => name === 't')?.[1];
  if (!timestamp || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', SIGNING_SECRET).update(`${timestamp}.${rawBody}`).digest();
  return entries.some(([name, value]) => {
    if (name !== 'v1') return false;
    const candidate = Buffer.from(value ?? '', 'hex');
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}

async function replyLater(path, token, body) {
  await new Promise((resolve) => setTimeout(resolve, RESUME_AFTER_MS));
  const response = await fetch(`${LETHE_URL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  log(`  -> POST ${path}: ${response.status} ${await response.text()}`);
}

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    if (SIGNING_SECRET && !signatureIsValid(request.headers['lethe-signature'], raw)) {
      log(`${request.url}: bad Lethe-Signature, refused`);
      response.writeHead(401).end();
      return;
    }
    const call = JSON.parse(raw || '{}');
    const token = request.headers['reply-to-token'];
    log(
      `${request.url}: ${call.callback_type} ${call.direction} ${call.privacy_request_id}` +
        ` (Idempotency-Key ${request.headers['idempotency-key']})`,
    );
    if (request.headers['reply-to-eligible'] && token) {
      response.writeHead(200).end();
      void replyLater(request.headers['reply-to-eligible'], token, {});
    } else if (request.headers['reply-to'] && token) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ halt: true }));
      log(`  halted; resuming in ${RESUME_AFTER_MS} ms`);
      void replyLater(
        request.headers['reply-to'],
        token,
        DERIVED_PHONE ? { derived_identity: { phone_number: DERIVED_PHONE } } : {},
      );
    } else {
      response.writeHead(200).end();
    }
  });
}).listen(PORT, '127.0.0.1', () => log(`receiver listening on http://127.0.0.1:${PORT}`));
