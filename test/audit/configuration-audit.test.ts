// The configuration audit over real HTTP: every write route of Fastify's route table (walked, not
// listed by hand) is called by a signed-in owner and must leave an audit entry naming that person and
// the action; the audit log never holds a secret nor a personal value sent along; it filters by actor,
// action family and time; and a change that fails leaves no entry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RouteEntry, managementWriteRoutes } from '../helpers/route-table.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const PASSWORD = 'audited owner password';
const AUTHORIZATION_SECRET = 'Bearer authorization-secret-4d1f';
const OAUTH_SECRET = 'oauth-client-secret-93ac';
const OAUTH_SECRET_2 = 'oauth-client-secret-second-77be';
const SUBJECT_EMAIL = 'subject.audited@example.com';
const RESPONDENT_EMAIL = 'respondent.audited@vendor.example';
const OPERATOR_EMAIL = 'operator.work@example.com';
const AGENT_EMAIL = 'agent.audited@example.com';
const AGENT_SUBJECT_EMAIL = 'represented.audited@example.com';
const TARGET = 'https://127.0.0.1:9';

interface Sample {
  pattern: RegExp;
  /** Sets up what the call needs (as root), makes it as the owner; answers the status and the action expected. */
  run(route: RouteEntry): Promise<{ status: number; text: string; action: string }>;
}

describe('configuration audit', () => {
  let service: TestService;
  let owner: string;
  let counter = 0;
  /** Every secret or personal value sent or answered: none may appear in the audit log. */
  const secrets = new Set([
    PASSWORD,
    AUTHORIZATION_SECRET,
    OAUTH_SECRET,
    OAUTH_SECRET_2,
    SUBJECT_EMAIL,
    RESPONDENT_EMAIL,
    AGENT_EMAIL,
    OPERATOR_EMAIL,
  ]);

  before(async () => {
    service = await startTestService(
      { requireManualApproval: true, webhookAllowedHosts: ['127.0.0.1'], webhookTimeoutMs: 2000 },
      { worker: true, checkAnswers: true },
    );
    const created = await service.call('POST', '/v1/user', {
      token: await service.rootToken(),
      json: { username: 'audit.owner', password: PASSWORD, roles: ['owner'] },
    });
    assert.equal(created.status, 201, created.text);
    const login = await service.call('POST', '/v1/login', {
      json: { username: 'audit.owner', password: PASSWORD },
    });
    owner = login.body.token_data.access_token;
  });
  after(() => service.stop());

  const unique = (prefix: string) => `${prefix}_${(counter += 1)}`;

  async function asRoot(method: string, path: string, json?: unknown) {
    const answer = await service.call(method, path, { token: await service.rootToken(), json });
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.text}`);
    remember(answer.body);
    return answer.body;
  }

  async function asOwner(method: string, path: string, json?: unknown) {
    const answer = await service.call(method, path, { token: owner, json });
    remember(answer.body);
    return answer;
  }

  /** Collects the secrets an answer shows once (client secrets, API keys, signing secrets). */
  function remember(body: unknown) {
    const text = JSON.stringify(body ?? null);
    for (const match of text.matchAll(
      /"(?:client_secret|signing_secret|secret)":"([^"*]{16,})"|"key":"(lk_[^"]+)"/g,
    )) {
      secrets.add((match[1] ?? match[2]) as string);
    }
  }

  /** An event subscription to TARGET, made as root; its secret is remembered. */
  async function eventSubscription() {
    const key = unique('audit_events');
    await asRoot('PUT', `/v1/event-subscription/${key}`, {
      url: `${TARGET}/events`,
      events: ['privacy_request.received'],
      format: 'cloudevents',
    });
    return key;
  }

  async function connection(withSecrets = true) {
    const key = unique('audit_conn');
    await asRoot('PATCH', '/v1/connection', [{ key, name: key, connection_type: 'https', access: 'write' }]);
    if (withSecrets) await asRoot('PUT', `/v1/connection/${key}`, { url: `${TARGET}/hook` });
    return key;
  }

  async function withOAuth(key: string) {
    await asRoot('PUT', `/v1/connection/${key}/oauth`, {
      grant_type: 'client_credentials',
      token_url: `${TARGET}/token`,
      scope: 'callbacks',
      client_id: 'lethe',
      client_secret: OAUTH_SECRET,
    });
    return key;
  }

  async function pendingRequest(policyKey = 'default_access_policy', location?: string) {
    const body = await asRoot('POST', '/v1/privacy-request', [
      { identity: { email: SUBJECT_EMAIL }, policy_key: policyKey, ...(location ? { location } : {}) },
    ]);
    return body.succeeded[0].id as string;
  }

  /** An erasure-only manual system, so that the other samples' access requests get no task. */
  async function manualSystem(key = unique('audit_manual')) {
    await asRoot('PUT', `/v1/manual-system/${key}`, {
      name: `Archive ${key}`,
      actions: ['erasure'],
      fields: [{ name: 'confirmation', label: 'Confirmation' }],
      instructions: 'Shred the paper file.',
    });
    return key;
  }

  /** An open task: an erasure request approved and run up to its manual step. */
  async function openTask() {
    const system = await manualSystem();
    const policy = unique('audit_task_pol');
    await asRoot('PATCH', '/v1/dsr/policy', [{ name: policy, key: policy, drp_action: 'erasure' }]);
    const id = await pendingRequest(policy);
    await asRoot('PATCH', '/v1/privacy-request/administrate/approve', { request_ids: [id] });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const tasks = (await asRoot('GET', `/v1/privacy-request/${id}/task`)) as {
        id: string;
        status: string;
        system: string;
      }[];
      const open = tasks.find((task) => task.status === 'open' && task.system === system);
      if (open) return open.id;
      assert.ok(Date.now() < deadline, 'the request got no task');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function webhookList(policyKey: string, timing: string) {
    const key = await connection();
    const webhook = unique('audit_wh');
    await asRoot('PUT', `/v1/policy/${policyKey}/webhook/${timing}`, [
      { connection_config_key: key, direction: 'one_way', key: webhook, name: webhook },
    ]);
    return webhook;
  }

  const call = async (method: string, path: string, action: string, json?: unknown) => {
    const answer = await asOwner(method, path, json);
    return { status: answer.status, text: answer.text, action };
  };

  const samples: Sample[] = [
    {
      pattern: /^POST \/v1\/oauth\/client$/,
      run: () =>
        call('POST', '/v1/oauth/client', 'client.create', { name: 'audited', scopes: ['policy:read'] }),
    },
    {
      pattern: /^DELETE \/v1\/oauth\/client\/:client_id$/,
      run: async () => {
        const created = await asRoot('POST', '/v1/oauth/client', { name: 'doomed', scopes: ['policy:read'] });
        return call('DELETE', `/v1/oauth/client/${created.client_id}`, 'client.delete');
      },
    },
    {
      pattern: /^POST \/v1\/user$/,
      run: () =>
        call('POST', '/v1/user', 'operator.create', {
          username: unique('new.viewer'),
          password: PASSWORD,
          roles: ['viewer'],
        }),
    },
    {
      pattern: /^PATCH \/v1\/user\/:username$/,
      run: async () => {
        const username = unique('reminded.viewer');
        await asRoot('POST', '/v1/user', { username, password: PASSWORD, roles: ['viewer'] });
        return call('PATCH', `/v1/user/${username}`, 'operator.update', { email: OPERATOR_EMAIL });
      },
    },
    {
      pattern: /^DELETE \/v1\/user\/:username$/,
      run: async () => {
        const username = unique('leaving.viewer');
        await asRoot('POST', '/v1/user', { username, password: PASSWORD, roles: ['viewer'] });
        return call('DELETE', `/v1/user/${username}`, 'operator.delete');
      },
    },
    {
      pattern: /^PATCH \/v1\/connection$/,
      run: () =>
        call('PATCH', '/v1/connection', 'connection.create', [
          { key: unique('audit_new_conn'), name: 'New', connection_type: 'https', access: 'read' },
        ]),
    },
    {
      pattern: /^DELETE \/v1\/connection\/:connection_key$/,
      run: async () => call('DELETE', `/v1/connection/${await connection()}`, 'connection.delete'),
    },
    {
      pattern: /^PUT \/v1\/connection\/:connection_key$/,
      run: async () =>
        call('PUT', `/v1/connection/${await connection(false)}`, 'connection.secrets.replace', {
          url: `${TARGET}/callback`,
          authorization: AUTHORIZATION_SECRET,
        }),
    },
    {
      pattern: /^PUT \/v1\/connection\/:connection_key\/oauth$/,
      run: async () =>
        call('PUT', `/v1/connection/${await connection()}/oauth`, 'connection.oauth.replace', {
          grant_type: 'client_credentials',
          token_url: `${TARGET}/token`,
          scope: 'callbacks',
          client_id: 'lethe',
          client_secret: OAUTH_SECRET,
        }),
    },
    {
      pattern: /^PATCH \/v1\/connection\/:connection_key\/oauth$/,
      run: async () =>
        call(
          'PATCH',
          `/v1/connection/${await withOAuth(await connection())}/oauth`,
          'connection.oauth.update',
          {
            client_secret: OAUTH_SECRET_2,
          },
        ),
    },
    {
      pattern: /^DELETE \/v1\/connection\/:connection_key\/oauth$/,
      run: async () =>
        call(
          'DELETE',
          `/v1/connection/${await withOAuth(await connection())}/oauth`,
          'connection.oauth.delete',
        ),
    },
    {
      pattern: /^POST \/v1\/connection\/:connection_key\/signing-secret$/,
      run: async () =>
        call(
          'POST',
          `/v1/connection/${await connection()}/signing-secret`,
          'connection.signing-secret.rotate',
          {
            grace_period_seconds: 60,
          },
        ),
    },
    {
      pattern: /^PATCH \/v1\/dsr\/policy$/,
      run: () =>
        call('PATCH', '/v1/dsr/policy', 'policy.upsert', [{ name: 'Audited', key: unique('audit_pol') }]),
    },
    {
      pattern: /^PATCH \/v1\/dsr\/policy\/:policy_key\/rule$/,
      run: () =>
        call('PATCH', '/v1/dsr/policy/default_access_policy/rule', 'policy.rule.upsert', [
          {
            name: 'Audited rule',
            key: unique('audit_rule'),
            action_type: 'access',
            storage_destination_key: 'default_storage',
          },
        ]),
    },
    {
      pattern: /^POST \/v1\/datastore$/,
      run: () =>
        call('POST', '/v1/datastore', 'datastore.create', { name: unique('audit-ds').replace('_', '-') }),
    },
    {
      pattern: /^DELETE \/v1\/datastore\/:name$/,
      run: async () => {
        const name = unique('doomed-ds').replace('_', '-');
        await asRoot('POST', '/v1/datastore', { name });
        return call('DELETE', `/v1/datastore/${name}`, 'datastore.delete');
      },
    },
    {
      pattern: /^PUT \/v1\/datastore\/:name\/labels$/,
      run: async () => {
        const name = unique('labelled-ds').replace('_', '-');
        await asRoot('POST', '/v1/datastore', { name });
        return call('PUT', `/v1/datastore/${name}/labels`, 'datastore.labels', { users: 'Your account' });
      },
    },
    {
      pattern: /^PUT \/v1\/datastore\/:name\/identities$/,
      run: async () => {
        const name = unique('declared-ds').replace('_', '-');
        await asRoot('POST', '/v1/datastore', { name });
        return call('PUT', `/v1/datastore/${name}/identities`, 'datastore.identities', {
          email: ['users.email'],
        });
      },
    },
    {
      pattern: /^PUT \/(?:v1\/policy|api\/v1\/dsr\/policy)\/:policy_key\/webhook\/(pre|post)[_-]execution$/,
      run: async (route) => {
        const key = await connection();
        const webhook = unique('audit_wh');
        return call('PUT', route.url.replace(':policy_key', 'default_erasure_policy'), 'webhook.replace', [
          { connection_config_key: key, direction: 'one_way', key: webhook, name: webhook },
        ]);
      },
    },
    {
      pattern:
        /^PATCH \/(?:v1\/policy|api\/v1\/dsr\/policy)\/:policy_key\/webhook\/(pre|post)[_-]execution\/:webhook_key$/,
      run: async (route) => {
        const timing = /webhook\/([^/]+)\//.exec(route.url)?.[1] as string;
        const webhook = await webhookList('default_erasure_policy', timing);
        const path = route.url
          .replace(':policy_key', 'default_erasure_policy')
          .replace(':webhook_key', webhook);
        return call('PATCH', path, 'webhook.update', { name: 'Renamed' });
      },
    },
    {
      pattern:
        /^DELETE \/(?:v1\/policy|api\/v1\/dsr\/policy)\/:policy_key\/webhook\/(pre|post)[_-]execution\/:webhook_key$/,
      run: async (route) => {
        const timing = /webhook\/([^/]+)\//.exec(route.url)?.[1] as string;
        const webhook = await webhookList('default_erasure_policy', timing);
        const path = route.url
          .replace(':policy_key', 'default_erasure_policy')
          .replace(':webhook_key', webhook);
        return call('DELETE', path, 'webhook.delete');
      },
    },
    {
      pattern: /^PUT \/(?:v1\/pre_approval_webhook|api\/v1\/dsr\/webhook\/pre_approval)$/,
      run: async (route) => {
        const key = await connection();
        const answer = await call('PUT', route.url, 'webhook.pre-approval.replace', [
          { connection_config_key: key, key: 'audit_pre_approval', name: 'Pre-approval' },
        ]);
        // Requests made later in this file must not wait for a pre-approval answer.
        await asRoot('PUT', '/v1/pre_approval_webhook', []);
        return answer;
      },
    },
    {
      pattern: /^PATCH \/(?:v1\/pre_approval_webhook|api\/v1\/dsr\/webhook\/pre_approval)\/:webhook_key$/,
      run: async (route) => {
        await asRoot('PUT', '/v1/pre_approval_webhook', [
          { connection_config_key: await connection(), key: 'audit_pre_one', name: 'One' },
        ]);
        const answer = await call(
          'PATCH',
          route.url.replace(':webhook_key', 'audit_pre_one'),
          'webhook.pre-approval.update',
          {
            name: 'Renamed',
          },
        );
        await asRoot('PUT', '/v1/pre_approval_webhook', []);
        return answer;
      },
    },
    {
      pattern: /^DELETE \/(?:v1\/pre_approval_webhook|api\/v1\/dsr\/webhook\/pre_approval)\/:webhook_key$/,
      run: async (route) => {
        await asRoot('PUT', '/v1/pre_approval_webhook', [
          { connection_config_key: await connection(), key: 'audit_pre_two', name: 'Two' },
        ]);
        return call(
          'DELETE',
          route.url.replace(':webhook_key', 'audit_pre_two'),
          'webhook.pre-approval.delete',
        );
      },
    },
    {
      pattern: /^PUT \/api\/v1\/connection\/:connection_key\/secret$/,
      run: async (route) =>
        call(
          'PUT',
          route.url.replace(':connection_key', await connection(false)),
          'connection.secrets.replace',
          {
            url: `${TARGET}/fides`,
            authorization: AUTHORIZATION_SECRET,
          },
        ),
    },
    {
      pattern: /^PUT \/v1\/datastore\/:name\/disclosure$/,
      run: async () => {
        const name = unique('audit_ds');
        await asRoot('POST', '/v1/datastore', { name });
        return call('PUT', `/v1/datastore/${name}/disclosure`, 'datastore.disclosure.update', {
          purposes: ['Accounts'],
          recipients: [],
          retention: '1 year',
        });
      },
    },
    {
      pattern: /^PUT \/v1\/connection\/:connection_key\/disclosure$/,
      run: async () =>
        call('PUT', `/v1/connection/${await connection()}/disclosure`, 'connection.disclosure.update', {
          purposes: ['Analytics'],
          recipients: ['Analytics Inc'],
          retention: '26 months',
        }),
    },
    {
      pattern: /^PUT \/v1\/privacy-center$/,
      run: async () => {
        const current = await asRoot('GET', '/v1/privacy-center');
        return call('PUT', '/v1/privacy-center', 'privacy-center.update', current);
      },
    },
    {
      pattern: /^POST \/v1\/privacy-request\/:id\/agent\/accept$/,
      run: async () => {
        const current = await asRoot('GET', '/v1/privacy-center');
        await asRoot('PUT', '/v1/privacy-center', {
          ...current,
          actions: [
            {
              policy_key: 'default_access_policy',
              title: 'Access',
              description: '',
              identity_inputs: { email: 'required' },
            },
          ],
        });
        const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
          json: {
            policy_key: 'default_access_policy',
            // An address of its own: the operator's requests above mailed SUBJECT_EMAIL more than 5 times
            // this hour, and every mail to an address counts against its cap, whoever caused it.
            identity: { email: AGENT_SUBJECT_EMAIL },
            agent: { name: 'Audited Agent', email: AGENT_EMAIL },
          },
        });
        assert.equal(submitted.status, 200, submitted.text);
        const id = submitted.body.id as string;
        const outbox = await asRoot('GET', `/v1/outbox?privacy_request_id=${id}`);
        const code = /enter this code: (\d{6})/.exec(outbox.items[0].text)?.[1];
        const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
        assert.equal(verified.status, 200, verified.text);
        return call('POST', `/v1/privacy-request/${id}/agent/accept`, 'privacy-request.agent.accept', {
          reason: 'power of attorney seen',
          identities: [],
        });
      },
    },
    {
      pattern: /^POST \/v1\/privacy-request\/:id\/cancel$/,
      run: async () =>
        call('POST', `/v1/privacy-request/${await pendingRequest()}/cancel`, 'privacy-request.cancel', {
          reason: `asked by ${SUBJECT_EMAIL}`,
          reason_code: 'subject_withdrew',
        }),
    },
    {
      pattern: /^POST \/v1\/privacy-request$/,
      run: () =>
        call('POST', '/v1/privacy-request', 'privacy-request.create', [
          { identity: { email: SUBJECT_EMAIL }, policy_key: 'default_access_policy' },
        ]),
    },
    {
      pattern: /^PATCH \/v1\/privacy-request\/administrate\/approve$/,
      run: async () =>
        call('PATCH', '/v1/privacy-request/administrate/approve', 'privacy-request.approve', {
          request_ids: [await pendingRequest()],
        }),
    },
    {
      pattern: /^PATCH \/v1\/privacy-request\/administrate\/deny$/,
      run: async () =>
        call('PATCH', '/v1/privacy-request/administrate/deny', 'privacy-request.deny', {
          request_ids: [await pendingRequest()],
          reason: `asked by ${SUBJECT_EMAIL}`,
        }),
    },
    {
      pattern: /^POST \/v1\/privacy-request\/:id\/extend$/,
      run: async () =>
        call(
          'POST',
          `/v1/privacy-request/${await pendingRequest('default_access_policy', 'US-CA')}/extend`,
          'privacy-request.extend',
          { reason: `records of ${SUBJECT_EMAIL} are archived` },
        ),
    },
    {
      pattern: /^POST \/v1\/privacy-request\/:id\/appeal\/decide$/,
      run: async () => {
        // Denied by root, appealed through a link whose token the test sets (the mailed one is sealed).
        const id = await pendingRequest('default_access_policy', 'US-CO');
        await asRoot('PATCH', '/v1/privacy-request/administrate/deny', {
          request_ids: [id],
          reason: 'no match',
        });
        const token = 'a'.repeat(43);
        await service.services.db.query(
          "UPDATE privacy_request_appeals SET token_hash = sha256(convert_to($2, 'UTF8')) WHERE privacy_request_id = $1",
          [id, token],
        );
        const appealed = await service.call('POST', '/v1/privacy-center/appeal', {
          json: { token, statement: `I am ${SUBJECT_EMAIL}` },
        });
        assert.equal(appealed.status, 200, appealed.text);
        return call('POST', `/v1/privacy-request/${id}/appeal/decide`, 'privacy-request.appeal.decide', {
          outcome: 'upheld',
          reason: `still no match for ${SUBJECT_EMAIL}`,
        });
      },
    },
    {
      pattern: /^POST \/v1\/privacy-request\/:id\/retry$/,
      run: async () => {
        // A two_way pre-execution webhook whose target refuses the connection puts the request in error.
        const policy = unique('audit_retry_pol');
        await asRoot('PATCH', '/v1/dsr/policy', [{ name: policy, key: policy }]);
        const key = await connection();
        await asRoot('PUT', `/v1/policy/${policy}/webhook/pre_execution`, [
          { connection_config_key: key, direction: 'two_way', key: 'refused', name: 'Refused' },
        ]);
        const id = await pendingRequest(policy);
        await asRoot('PATCH', '/v1/privacy-request/administrate/approve', { request_ids: [id] });
        const deadline = Date.now() + 60_000;
        let status = '';
        while (status !== 'error' && Date.now() < deadline) {
          status = (await asRoot('GET', `/v1/privacy-request/${id}`)).status;
          if (status !== 'error') await new Promise((resolve) => setTimeout(resolve, 200));
        }
        assert.equal(status, 'error');
        return call('POST', `/v1/privacy-request/${id}/retry`, 'privacy-request.retry');
      },
    },
    {
      pattern: /^POST \/v1\/api-key$/,
      run: () => call('POST', '/v1/api-key', 'api-key.issue', { name: 'audited key', datastores: ['*'] }),
    },
    {
      pattern: /^DELETE \/v1\/api-key\/:id$/,
      run: async () => {
        const issued = await asRoot('POST', '/v1/api-key', { name: 'doomed key', datastores: ['*'] });
        return call('DELETE', `/v1/api-key/${issued.id}`, 'api-key.revoke');
      },
    },
    {
      pattern: /^PUT \/v1\/manual-system\/:key$/,
      run: () =>
        call('PUT', `/v1/manual-system/${unique('audit_manual')}`, 'manual-system.create', {
          name: 'Paper archive',
          actions: ['erasure'],
          fields: [{ name: 'box', label: 'Box number' }],
          instructions: 'Ask the archivist.',
        }),
    },
    {
      pattern: /^DELETE \/v1\/manual-system\/:key$/,
      run: async () => call('DELETE', `/v1/manual-system/${await manualSystem()}`, 'manual-system.delete'),
    },
    {
      pattern: /^POST \/v1\/task\/:id\/complete$/,
      run: async () =>
        call('POST', `/v1/task/${await openTask()}/complete`, 'task.complete', {
          data: { confirmation: `shredded for ${SUBJECT_EMAIL}` },
        }),
    },
    {
      pattern: /^POST \/v1\/task\/:id\/skip$/,
      run: async () => call('POST', `/v1/task/${await openTask()}/skip`, 'task.skip', { reason: 'no file' }),
    },
    {
      pattern: /^POST \/v1\/task\/:id\/invite$/,
      run: async () =>
        call('POST', `/v1/task/${await openTask()}/invite`, 'task.invite', {
          respondent_email: RESPONDENT_EMAIL,
        }),
    },
    {
      pattern: /^POST \/v1\/privacy-request\/:id\/note$/,
      run: async () =>
        call('POST', `/v1/privacy-request/${await pendingRequest()}/note`, 'privacy-request.note', {
          text: `spoke with ${SUBJECT_EMAIL}`,
          visibility: 'internal',
        }),
    },
    {
      pattern: /^POST \/v1\/privacy-request\/:id\/attachment$/,
      run: async () => {
        const form = new FormData();
        form.append('file', new Blob([`letter to ${SUBJECT_EMAIL}`]), `${SUBJECT_EMAIL}.txt`);
        const path = `/v1/privacy-request/${await pendingRequest()}/attachment`;
        const answer = await service.call('POST', path, { token: owner, body: form });
        return { status: answer.status, text: answer.text, action: 'privacy-request.attachment' };
      },
    },
    {
      pattern: /^PATCH \/v1\/task\/:id$/,
      run: async () =>
        call('PATCH', `/v1/task/${await openTask()}`, 'task.assign', { assignee: 'audit.owner' }),
    },
    {
      pattern: /^PUT \/v1\/event-subscription\/:key$/,
      run: () =>
        call('PUT', `/v1/event-subscription/${unique('audit_events')}`, 'event-subscription.create', {
          url: `${TARGET}/events`,
          events: ['privacy_request.received', 'task.created'],
          format: 'teams',
        }),
    },
    {
      pattern: /^DELETE \/v1\/event-subscription\/:key$/,
      run: async () =>
        call('DELETE', `/v1/event-subscription/${await eventSubscription()}`, 'event-subscription.delete'),
    },
    {
      pattern: /^POST \/v1\/event-subscription\/:key\/rotate-secret$/,
      run: async () =>
        call(
          'POST',
          `/v1/event-subscription/${await eventSubscription()}/rotate-secret`,
          'event-subscription.secret.rotate',
        ),
    },
    {
      pattern: /^POST \/v1\/event-subscription\/:key\/delivery\/:delivery_id\/redeliver$/,
      run: async () => {
        const key = await eventSubscription();
        // A delivery that failed for good, as the worker leaves one after 24 hours of retries.
        await service.services.db.query(
          `INSERT INTO event_deliveries (id, subscription_key, event_id, event_type, subject, privacy_request_id,
                                         occurred_at, data, state)
           VALUES ('msg_audit', $1, 'evt_audit', 'privacy_request.received', 'pri_audit', 'pri_audit', now(), '{}', 'failed')`,
          [key],
        );
        return call(
          'POST',
          `/v1/event-subscription/${key}/delivery/msg_audit/redeliver`,
          'event-subscription.redeliver',
        );
      },
    },
    {
      pattern: /^PUT \/v1\/role\/:name$/,
      run: () =>
        call('PUT', `/v1/role/${unique('audit_role')}`, 'role.create', {
          scopes: ['privacy-request:read'],
        }),
    },
    {
      pattern: /^DELETE \/v1\/role\/:name$/,
      run: async () => {
        const name = unique('audit_role');
        const made = await service.call('PUT', `/v1/role/${name}`, {
          token: await service.rootToken(),
          json: { scopes: ['privacy-request:read'] },
        });
        assert.ok(made.status < 300, made.text);
        return call('DELETE', `/v1/role/${name}`, 'role.delete');
      },
    },
    {
      pattern: /^PUT \/v1\/maintenance$/,
      run: () => call('PUT', '/v1/maintenance', 'maintenance.set', { enabled: false }),
    },
  ];

  async function ownerEntries() {
    const answer = await service.call('GET', '/v1/audit-log?actor=user:audit.owner&size=1000', {
      token: await service.rootToken(),
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.items as { seq: number; action: string; actor: string; request_id: string }[];
  }

  it(
    'records an entry naming the person for every write route of the route table',
    { timeout: 300_000 },
    async () => {
      // SCIM's writes are the identity provider's, made by its provisioning client and audited under that
      // client's name (test/scim/scim.test.ts checks them); every other write is a person's.
      const routes = managementWriteRoutes(service.app as NonNullable<TestService['app']>).filter(
        (route) => !route.url.startsWith('/scim/'),
      );
      const uncovered = routes.filter(
        (route) => !samples.some((sample) => sample.pattern.test(`${route.method} ${route.url}`)),
      );
      assert.deepEqual(uncovered, [], 'every write route needs an audit sample here');
      for (const route of routes) {
        const sample = samples.find((candidate) =>
          candidate.pattern.test(`${route.method} ${route.url}`),
        ) as Sample;
        const before = Math.max(0, ...(await ownerEntries()).map((entry) => entry.seq));
        const outcome = await sample.run(route);
        assert.ok(outcome.status < 300, `${route.method} ${route.url}: ${outcome.status} ${outcome.text}`);
        const added = (await ownerEntries()).filter((entry) => entry.seq > before);
        assert.deepEqual(
          added.map((entry) => entry.action),
          [outcome.action],
          `${route.method} ${route.url} should add exactly one ${outcome.action} entry`,
        );
        assert.match(added[0]?.request_id ?? '', /^[0-9a-f-]{36}$/);
      }
    },
  );

  it('never holds a secret or a personal value', async () => {
    const { rows } = await service.services.db.query<{ entry: string }>(
      'SELECT row_to_json(audit_log)::text AS entry FROM audit_log',
    );
    const everything = rows.map((row) => row.entry).join('\n');
    assert.ok(rows.length > 30);
    assert.ok(secrets.size > 10, `${secrets.size} secrets collected`);
    for (const secret of secrets)
      assert.ok(!everything.includes(secret), `the audit log holds ${secret.slice(0, 6)}...`);
  });

  it('filters by actor, action family and time', async () => {
    const token = await service.rootToken();
    const family = await service.call('GET', '/v1/audit-log?action=connection&actor=user:audit.owner', {
      token,
    });
    assert.equal(family.status, 200);
    const actions = new Set(family.body.items.map((entry: { action: string }) => entry.action));
    assert.deepEqual([...actions].sort(), [
      'connection.create',
      'connection.delete',
      'connection.disclosure.update',
      'connection.oauth.delete',
      'connection.oauth.replace',
      'connection.oauth.update',
      'connection.secrets.replace',
      'connection.signing-secret.rotate',
    ]);
    const exact = await service.call('GET', '/v1/audit-log?action=operator.create', { token });
    assert.ok(exact.body.items.every((entry: { action: string }) => entry.action === 'operator.create'));
    assert.ok(exact.body.items.some((entry: { actor: string }) => entry.actor === 'client:root-test-client'));
    // After every entry of this run, whatever day it is (until 2100).
    const future = '2100-01-01T00:00:00.000Z';
    const none = await service.call('GET', `/v1/audit-log?from=${encodeURIComponent(future)}`, { token });
    assert.equal(none.body.total, 0);
    const past = await service.call('GET', `/v1/audit-log?to=${encodeURIComponent(future)}&size=1`, {
      token,
    });
    assert.ok(past.body.total > 30);
    const bad = await service.call('GET', '/v1/audit-log?from=yesterday', { token });
    assert.equal(bad.status, 422);
  });

  it('writes no entry for a change that fails', async () => {
    const before = (await ownerEntries()).length;
    const missing = await asOwner('DELETE', '/v1/connection/no_such_connection');
    assert.equal(missing.status, 404);
    const taken = await asOwner('POST', '/v1/user', {
      username: 'audit.owner',
      password: PASSWORD,
      roles: ['viewer'],
    });
    assert.equal(taken.status, 409);
    assert.equal((await ownerEntries()).length, before);
  });
});
