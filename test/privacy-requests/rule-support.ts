// Shared steps of the rule-runner tests: policies and rules made over the management API, subjects made
// over the subject-data API in two datastores, and readers for what the runner left behind (entities
// through the public API, the audit log, the package file on disk).
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { type ApiClient, apiClient } from '../helpers/area-b.ts';
import type { TestService } from '../helpers/service.ts';
import type { Identity } from '../../src/privacy-requests/identity.ts';
import {
  givenByOperator,
  type TrustedMatch,
  trustedMatches,
} from '../../src/privacy-requests/trusted-identity.ts';

export interface Subject {
  /** The identity as the data subject gives it (mixed case). */
  email: string;
  phone: string;
  crm: { userId: string; noteId: string; replyId: string };
  shop: { customerId: string; orderId: string };
  /** Every personal value stored for the subject, to look for where none may appear. */
  values: string[];
}

export interface Stores {
  crm: ApiClient;
  shop: ApiClient;
}

export async function openStores(service: TestService): Promise<Stores> {
  return { crm: await apiClient(service, 'crm'), shop: await apiClient(service, 'shop') };
}

export async function definePolicy(service: TestService, key: string, rules: unknown[]): Promise<void> {
  const token = await service.rootToken();
  const policy = await service.call('PATCH', '/v1/dsr/policy', { token, json: [{ name: key, key }] });
  assert.deepEqual(policy.body.failed, [], policy.text);
  const answer = await service.call('PATCH', `/v1/dsr/policy/${key}/rule`, { token, json: rules });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.body.failed, [], answer.text);
}

function created(answer: { status: number; text: string; body: { error: unknown }[] }) {
  assert.equal(answer.status, 203, answer.text);
  for (const item of answer.body) assert.equal(item.error, null, answer.text);
}

/**
 * A subject with a user, a note on it and a reply to the note (a grandchild) in `crm`, and a customer
 * with an order in `shop`. The shop holds the email lower-cased, the crm as the subject typed it.
 */
export async function seedSubject(stores: Stores, label: string): Promise<Subject> {
  const tag = randomUUID().slice(0, 8);
  const email = `${label}.${tag}@Example.COM`;
  const phone = `+4477${String(randomInt(1e8)).padStart(8, '0')}`;
  const subject: Subject = {
    email,
    phone,
    crm: { userId: randomUUID(), noteId: randomUUID(), replyId: randomUUID() },
    shop: { customerId: randomUUID(), orderId: randomUUID() },
    values: [
      email,
      email.toLowerCase(),
      phone,
      `${label} ${tag}`,
      `note of ${tag}`,
      `reply ${tag}`,
      `${tag} High Street`,
    ],
  };
  created(
    await stores.crm.call('/api/entity/create', {
      json: [
        {
          id: subject.crm.userId,
          name: 'users',
          attributes: [
            { name: 'email', value: email },
            { name: 'name', value: `${label} ${tag}` },
            { name: 'phone', value: phone },
            { name: 'nickname', value: null },
          ],
        },
        {
          id: subject.crm.noteId,
          name: 'notes',
          references: [{ parentId: subject.crm.userId, parentName: 'users' }],
          attributes: [{ name: 'text', value: `note of ${tag}` }],
        },
        {
          id: subject.crm.replyId,
          name: 'replies',
          references: [{ parentId: subject.crm.noteId, parentName: 'notes' }],
          attributes: [{ name: 'text', value: `reply ${tag}` }],
        },
      ],
    }),
  );
  created(
    await stores.shop.call('/api/entity/create', {
      json: [
        {
          id: subject.shop.customerId,
          name: 'customers',
          attributes: [
            { name: 'email', value: email.toLowerCase() },
            { name: 'address', value: `${tag} High Street` },
          ],
        },
        {
          id: subject.shop.orderId,
          name: 'orders',
          references: [{ parentId: subject.shop.customerId, parentName: 'customers' }],
          attributes: [
            { name: 'address', value: `${tag} High Street` },
            { name: 'total', value: '12.50' },
          ],
        },
      ],
    }),
  );
  return subject;
}

export async function uploadFile(client: ApiClient, entityId: string, name: string, content: string) {
  const form = new FormData();
  form.append('attribute', JSON.stringify({ entityId, name, value: `${name}.txt` }));
  form.append('file', new Blob([content], { type: 'text/plain' }), `${name}.txt`);
  const answer = await client.call('/api/file/upload', { body: form });
  assert.equal(answer.status, 200, answer.text);
}

export interface EntityAnswer {
  id: string;
  name: string;
  attributes: { name: string; value: string | null }[];
  files: { name: string }[];
  error: { code: string } | null;
}

export async function entity(client: ApiClient, id: string): Promise<EntityAnswer> {
  const answer = await client.call('/api/entity/get-by-id', { json: [id] });
  assert.equal(answer.status, 200, answer.text);
  return answer.body[0];
}

/** The attributes of an entity as a name -> value record (files left out). */
export async function attributesOf(client: ApiClient, id: string): Promise<Record<string, string | null>> {
  const found = await entity(client, id);
  assert.equal(found.error, null, `entity ${id} should exist`);
  return Object.fromEntries(found.attributes.map((attribute) => [attribute.name, attribute.value]));
}

export async function idsByIdentity(client: ApiClient, identity: string): Promise<string[]> {
  const answer = await client.call('/api/entity/get-by-identity', { json: [identity] });
  assert.equal(answer.status, 200, answer.text);
  return answer.body[0].entities.map((found: { id: string }) => found.id).sort();
}

export interface AuditItem {
  seq: number;
  action: string;
  datastore: string | null;
  entity_ids: string[];
  actor: string;
  details: Record<string, unknown>;
}

/** The audit entries a privacy request wrote (its access and erasure entries), oldest first, and as text. */
export async function auditOf(service: TestService, privacyRequestId: string) {
  const items: AuditItem[] = [];
  for (const action of ['privacy-request.access', 'privacy-request.erasure']) {
    const answer = await service.call('GET', `/v1/audit-log?size=1000&action=${action}`, {
      token: await service.rootToken(),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.ok(answer.body.total <= 1000, 'every entry fits in one page');
    items.push(...(answer.body.items as AuditItem[]).filter((item) => item.actor === privacyRequestId));
  }
  items.sort((a, b) => a.seq - b.seq);
  return { items, text: JSON.stringify(items) };
}

/** Every file under the data dir's access-packages folder for the request, raw. */
export async function packageFilesOnDisk(service: TestService, privacyRequestId: string): Promise<string[]> {
  const folder = path.join(service.config.dataDir, 'access-packages');
  const names = await readdir(folder).catch(() => [] as string[]);
  return Promise.all(
    names
      .filter((name) => name.startsWith(privacyRequestId))
      .map((name) => readFile(path.join(folder, name), 'utf8')),
  );
}

export const requestId = () => `pri_${randomUUID()}`;

/** Identities as an operator gives them (their management token is the proof): what a rule run matches. */
export function operatorMatches(identity: Identity): TrustedMatch[] {
  return trustedMatches(givenByOperator(identity));
}
