// Runs examples/fides-receiver.mjs, a receiver written against Fides' callback format, against Lethe set
// up the way a Fides script does it (Fides' paths and bodies only): the request is pre-approved, halted
// and resumed by the receiver's own replies, and completes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, waitForStatus } from '../privacy-requests/support.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../examples/fides-receiver.mjs');

interface ReceiverEvent {
  event: string;
  [field: string]: unknown;
}

describe('examples/fides-receiver.mjs against Lethe', () => {
  let service: TestService;
  let receiver: ChildProcess;
  const events: ReceiverEvent[] = [];
  let receiverUrl: string;

  before(async () => {
    service = await startTestService(engineConfig, { worker: true });
    receiver = spawn(process.execPath, [EXAMPLE], {
      env: {
        ...process.env,
        PORT: '0',
        FIDES_URL: service.url,
        AUTHORIZATION: 'Bearer receiver-token',
        REQUIRED_HEADER: 'X-Tenant: acme',
        RESUME_AFTER_MS: '300',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const listening = new Promise<number>((resolve, reject) => {
      receiver.once('exit', (code) => reject(new Error(`the example receiver exited with ${code}`)));
      createInterface({ input: receiver.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        const event = JSON.parse(line) as ReceiverEvent;
        events.push(event);
        if (event.event === 'listening') resolve(event.port as number);
      });
    });
    receiverUrl = `http://127.0.0.1:${await listening}`;
  });
  after(async () => {
    receiver.kill();
    await service.stop();
  });

  it('is pre-approved, halted and resumed by the unchanged Fides receiver, and completes', async () => {
    // A Fides script: token, connection, secrets with an extra header, pre-approval and policy webhooks.
    const root = service.config.rootClient as { id: string; secret: string };
    const issued = await service.call('POST', '/api/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: root.id,
        client_secret: root.secret,
      }),
    });
    assert.equal(issued.status, 200, issued.text);
    const token = issued.body.access_token as string;
    const call = async (method: string, urlPath: string, json: unknown) => {
      const answer = await service.call(method, `/api/v1${urlPath}`, { token, json });
      assert.equal(answer.status, 200, `${method} ${urlPath}: ${answer.text}`);
      return answer.body;
    };
    const connections = await call('PATCH', '/connection', [
      { name: 'Fides receiver', key: 'fides_receiver', connection_type: 'https', access: 'read' },
    ]);
    assert.deepEqual(connections.failed, []);
    const secret = await call('PUT', '/connection/fides_receiver/secret', {
      url: `${receiverUrl}/webhook`,
      authorization: 'Bearer receiver-token',
      headers: { 'X-Tenant': 'acme' },
    });
    assert.equal(secret.test_status, 'skipped');
    await call('PUT', '/dsr/webhook/pre_approval', [
      { connection_config_key: 'fides_receiver', name: 'Eligibility check' },
    ]);
    await call('PATCH', '/dsr/policy', [{ name: 'Erasure', key: 'fides_erasure', drp_action: 'erasure' }]);
    await call('PATCH', '/dsr/policy/fides_erasure/rule', [
      { name: 'Erase', key: 'erase', action_type: 'erasure' },
    ]);
    await call('PUT', '/dsr/policy/fides_erasure/webhook/pre_execution', [
      { connection_config_key: 'fides_receiver', direction: 'two_way', name: 'Hold for erasure' },
    ]);
    await call('PUT', '/dsr/policy/fides_erasure/webhook/post_execution', [
      { connection_config_key: 'fides_receiver', direction: 'one_way', name: 'Erasure done' },
    ]);

    const created = await call('POST', '/privacy-request', [
      { policy_key: 'fides_erasure', identity: { email: 'customer-1@example.com' } },
    ]);
    const id = created.succeeded[0].id as string;
    await waitForStatus(service, id, 'complete');

    const seen = events
      .filter(
        (event) => event.privacy_request_id === id || event.event === 'reply' || event.event === 'refused',
      )
      .map((event) =>
        event.event === 'callback'
          ? `${event.callback_type} ${event.direction} ${event.policy_action} ${event.privacy_request_status}`
          : `${event.event} ${String(event.path).replace(id, '<id>')} ${event.status ?? ''}`.trim(),
      );
    assert.deepEqual(seen, [
      'pre_approval one_way erasure pending',
      'reply /privacy-request/<id>/pre-approve/eligible 200',
      'pre two_way erasure in_processing',
      'reply /privacy-request/<id>/resume 200',
      'post one_way erasure in_processing',
    ]);
    assert.ok(events.every((event) => event.event !== 'refused'));
    assert.equal(events.find((event) => event.privacy_request_id === id)?.email, 'customer-1@example.com');
  });
});
