// A tiny webhook receiver for trying Lethe by hand. No dependencies: `node examples/receiver.mjs`.
//
// - two_way pre-execution calls (they carry `reply-to` and `reply-to-token`): answers {"halt": true},
//   then after RESUME_AFTER_MS resumes the request by POSTing to LETHE_URL + reply-to with the token;
//   with DERIVED_PHONE set, the resume body carries it as a derived identity.
// - pre-approval calls (`reply-to-eligible`): answers 200, then calls the eligible URL with the token.
// - everything else: answers 200 with an empty body.
// A reply that cannot be delivered (Lethe unreachable, 429 or 5xx) is tried again after 1, 2, 4, 8 and
// 16 s (RETRY_AFTER_MS doubles); a 4xx answer is final (the token was spent or refused) and is printed.
// The receiver never stops on a failed reply.
// With LETHE_SIGNING_SECRET set (the connection's whsec_ secret, shown once when it was created), every
// call's Lethe-Signature is checked and a bad one is answered 401.
//
// Environment: RECEIVER_PORT (9000), LETHE_URL (http://127.0.0.1:8080: where Lethe listens, with the
// PORT it was started with), RESUME_AFTER_MS (5000), RETRY_AFTER_MS (1000), DERIVED_PHONE,
// LETHE_SIGNING_SECRET.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const RECEIVER_PORT = Number(process.env.RECEIVER_PORT ?? 9000);
let LETHE_URL = process.env.LETHE_URL ?? 'http://127.0.0.1:8080';
while (LETHE_URL.endsWith('/')) LETHE_URL = LETHE_URL.slice(0, -1);
const RESUME_AFTER_MS = Number(process.env.RESUME_AFTER_MS ?? 5000);
const RETRY_AFTER_MS = Number(process.env.RETRY_AFTER_MS ?? 1000);
const REPLY_TRIES = 6;
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Posts a reply to Lethe, trying again while Lethe is unreachable or answers 429 or 5xx. */
async function replyLater(path, token, body) {
  await sleep(RESUME_AFTER_MS);
  for (let attempt = 1; attempt <= REPLY_TRIES; attempt++) {
    let outcome;
    try {
      const response = await fetch(`${LETHE_URL}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      outcome = `${response.status} ${await response.text()}`;
      if (response.status !== 429 && response.status < 500) {
        log(`  -> POST ${path}: ${outcome}`);
        return;
      }
    } catch (error) {
      outcome = `${error.message}${error.cause?.code ? ` (${error.cause.code})` : ''}`;
    }
    if (attempt === REPLY_TRIES) {
      log(`  -> POST ${path} failed ${REPLY_TRIES} times, giving up: ${outcome}`);
      return;
    }
    const wait = RETRY_AFTER_MS * 2 ** (attempt - 1);
    log(`  -> POST ${path} failed (${outcome}); trying again in ${wait} ms`);
    await sleep(wait);
  }
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
    let call;
    try {
      call = JSON.parse(raw || '{}');
    } catch {
      log(`${request.url}: not JSON, refused`);
      response.writeHead(400).end();
      return;
    }
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
}).listen(RECEIVER_PORT, '127.0.0.1', () =>
  log(`receiver listening on http://127.0.0.1:${RECEIVER_PORT}; replies go to ${LETHE_URL}`),
);
