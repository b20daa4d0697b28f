// A webhook receiver written for Ethyca Fides, using only Fides' documented callback format: it runs
// unchanged against Fides and against Lethe (docs/migrating-from-fides.md). No dependencies:
//
//   FIDES_URL=http://127.0.0.1:8080 AUTHORIZATION='Bearer receiver-token' node examples/fides-receiver.mjs
//
// The body it reads: privacy_request_id, privacy_request_status, direction, callback_type
// (pre_approval | pre | post), identity, policy_action (access | erasure | ...). Headers: Authorization
// as configured on the connection, any extra headers of the connection, and for replies reply-to-token
// with reply-to (resume) or reply-to-approve / reply-to-deny (pre-approval). Reply paths are relative to
// FIDES_URL + /api/v1.
//
// - pre-approval calls: approves the request (POST reply-to-approve with the token);
// - two_way pre-execution calls of an erasure: halts, then resumes after RESUME_AFTER_MS;
// - every other call: answers 200 (two_way: an empty derived identity, no halt).
// With REQUIRED_HEADER=name:value, calls without that header are refused with 401 like a bad
// Authorization. Every call and reply is printed as one JSON line.
import { createServer } from 'node:http';

const PORT = Number(process.env.PORT ?? 9001);
const FIDES_URL = process.env.FIDES_URL ?? 'http://127.0.0.1:8080';
const AUTHORIZATION = process.env.AUTHORIZATION;
const RESUME_AFTER_MS = Number(process.env.RESUME_AFTER_MS ?? 2000);
const [requiredName, ...requiredValue] = (process.env.REQUIRED_HEADER ?? '').split(':');
const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

async function reply(path, token, body) {
  const response = await fetch(`${FIDES_URL}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  print({ event: 'reply', path, status: response.status });
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const authorized =
      (AUTHORIZATION === undefined || request.headers.authorization === AUTHORIZATION) &&
      (!requiredName || request.headers[requiredName.toLowerCase()] === requiredValue.join(':').trim());
    if (!authorized) {
      print({ event: 'refused', path: request.url });
      response.writeHead(401).end();
      return;
    }
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    print({
      event: 'callback',
      callback_type: call.callback_type,
      direction: call.direction,
      policy_action: call.policy_action,
      privacy_request_status: call.privacy_request_status,
      privacy_request_id: call.privacy_request_id,
      email: call.identity?.email,
    });
    const token = request.headers['reply-to-token'];
    if (call.callback_type === 'pre_approval' && token) {
      response.writeHead(200).end();
      void reply(request.headers['reply-to-approve'], token, {});
      return;
    }
    if (call.callback_type === 'pre' && call.direction === 'two_way' && call.policy_action === 'erasure') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ halt: true }));
      setTimeout(
        () => void reply(request.headers['reply-to'], token, { derived_identity: {} }),
        RESUME_AFTER_MS,
      );
      return;
    }
    if (call.direction === 'two_way') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ derived_identity: {}, halt: false }));
      return;
    }
    response.writeHead(200).end();
  });
});
server.listen(PORT, '127.0.0.1', () => print({ event: 'listening', port: server.address().port }));
