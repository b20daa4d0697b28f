// The ordered webhook lists: a policy's pre- and post-execution webhooks and the pre-approval webhooks.
// Every change runs in one transaction that locks the list first, validates the whole request, and leaves
// the list contiguous from order 0; a request that fails changes nothing. A webhook keeps its id while its
// key stays in the list (the engine refers to webhooks by id while a request is paused on one).
import { randomUUID } from 'node:crypto';
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import type { Database, Queryable } from '../db/database.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { type PreApprovalRow, type Timing, type WebhookRow, webhookRepository } from './repository.ts';
import type {
  PreApprovalItem,
  PreApprovalPatchBody,
  PreApprovalView,
  WebhookItem,
  WebhookPatchBody,
  WebhookView,
} from './schemas.ts';

/** An `order` outside the list (422 on Lethe's paths; Fides answers 400, which its paths do). */
export class WebhookOrderError extends DomainError {
  constructor(message: string) {
    super('invalid', message);
  }
}

/** How a timing is written in paths and messages. */
export const TIMING_NAMES: Record<Timing, string> = { pre: 'pre_execution', post: 'post_execution' };

export class WebhookService {
  readonly #db: Database;

  constructor(services: { db: Database }) {
    this.#db = services.db;
  }

  async list(policyKey: string, timing: Timing): Promise<WebhookView[]> {
    const policyId = await this.#policyId(this.#db, policyKey, false);
    return (await webhookRepository.listPolicyWebhooks(this.#db, policyId, timing)).map(toWebhookView);
  }

  async get(policyKey: string, timing: Timing, webhookKey: string): Promise<WebhookView> {
    const policyId = await this.#policyId(this.#db, policyKey, false);
    const rows = await webhookRepository.listPolicyWebhooks(this.#db, policyId, timing);
    return toWebhookView(findWebhook(rows, webhookKey, policyKey, timing));
  }

  /** Replaces the whole list: order is body order; webhooks absent from the body are removed. */
  async replace(
    by: ChangeActor,
    policyKey: string,
    timing: Timing,
    items: readonly WebhookItem[],
  ): Promise<WebhookView[]> {
    return this.#db.transaction(async (tx) => {
      const policyId = await this.#policyId(tx, policyKey, true);
      assertDistinctKeys(items, `the ${TIMING_NAMES[timing]} webhooks of policy ${policyKey}`);
      await assertConnectionsExist(tx, items);
      const existing = await webhookRepository.listPolicyWebhooks(tx, policyId, timing);
      const wanted = new Set(items.map((item) => item.key));
      await webhookRepository.removePolicyWebhooks(
        tx,
        existing.filter((row) => !wanted.has(row.key)).map((row) => row.id),
      );
      const byKey = new Map(existing.map((row) => [row.key, row]));
      for (const [position, item] of items.entries()) {
        const write = {
          key: item.key,
          name: item.name,
          direction: item.direction,
          connectionKey: item.connection_config_key,
          position,
        };
        const current = byKey.get(item.key);
        if (current) await webhookRepository.updatePolicyWebhook(tx, current.id, write);
        else {
          await webhookRepository.insertPolicyWebhook(tx, {
            ...write,
            id: `pwh_${randomUUID()}`,
            policyId,
            timing,
          });
        }
      }
      await recordChange(tx, by, 'webhook.replace', {
        policy_key: policyKey,
        timing: TIMING_NAMES[timing],
        order: items.map((item) => item.key),
        removed: existing.filter((row) => !wanted.has(row.key)).map((row) => row.key),
      });
      return (await webhookRepository.listPolicyWebhooks(tx, policyId, timing)).map(toWebhookView);
    });
  }

  /**
   * Changes some fields of one webhook. A new `order` moves it to that position and shifts the ones in
   * between by one (moving 0 to 1 moves 1 to 0); the answer lists every webhook's resulting order and
   * whether this one moved.
   */
  async update(
    by: ChangeActor,
    policyKey: string,
    timing: Timing,
    webhookKey: string,
    changes: WebhookPatchBody,
  ) {
    return this.#db.transaction(async (tx) => {
      const policyId = await this.#policyId(tx, policyKey, true);
      const rows = await webhookRepository.listPolicyWebhooks(tx, policyId, timing);
      const target = findWebhook(rows, webhookKey, policyKey, timing);
      if (changes.connection_config_key !== undefined) {
        await assertConnectionsExist(tx, [{ connection_config_key: changes.connection_config_key }]);
      }
      const ordered = rows.filter((row) => row.id !== target.id);
      const position = changes.order ?? target.position;
      if (position < 0 || position > rows.length - 1) {
        throw new WebhookOrderError(
          `Cannot set order to ${position}: there are only ${rows.length} ${TIMING_NAMES[timing]} webhook(s) defined on policy ${policyKey}; order must be between 0 and ${rows.length - 1}.`,
        );
      }
      ordered.splice(position, 0, target);
      for (const [index, row] of ordered.entries()) {
        if (row.id !== target.id && row.position !== index) {
          await webhookRepository.movePolicyWebhook(tx, row.id, index);
        }
      }
      await webhookRepository.updatePolicyWebhook(tx, target.id, {
        key: target.key,
        name: changes.name ?? target.name,
        direction: changes.direction ?? target.direction,
        connectionKey: changes.connection_config_key ?? target.connection_key,
        position,
      });
      const after = await webhookRepository.listPolicyWebhooks(tx, policyId, timing);
      await recordChange(tx, by, 'webhook.update', {
        policy_key: policyKey,
        timing: TIMING_NAMES[timing],
        key: webhookKey,
        fields: Object.keys(changes),
        order: after.map((row) => row.key),
      });
      return {
        resource: toWebhookView(findWebhook(after, webhookKey, policyKey, timing)),
        new_order: after.map((row) => ({ key: row.key, order: row.position })),
        moved: position !== target.position,
      };
    });
  }

  /**
   * Removes one webhook; the ones after it move up so the order stays contiguous. Answers the removed
   * webhook and the resulting order of the ones left.
   */
  async remove(by: ChangeActor, policyKey: string, timing: Timing, webhookKey: string) {
    return this.#db.transaction(async (tx) => {
      const policyId = await this.#policyId(tx, policyKey, true);
      const rows = await webhookRepository.listPolicyWebhooks(tx, policyId, timing);
      const target = findWebhook(rows, webhookKey, policyKey, timing);
      await webhookRepository.removePolicyWebhooks(tx, [target.id]);
      for (const row of rows) {
        if (row.position > target.position) {
          await webhookRepository.movePolicyWebhook(tx, row.id, row.position - 1);
        }
      }
      await recordChange(tx, by, 'webhook.delete', {
        policy_key: policyKey,
        timing: TIMING_NAMES[timing],
        key: webhookKey,
      });
      const after = await webhookRepository.listPolicyWebhooks(tx, policyId, timing);
      return {
        removed: toWebhookView(target),
        new_order: after.map((row) => ({ key: row.key, order: row.position })),
      };
    });
  }

  async listPreApproval(): Promise<PreApprovalView[]> {
    return (await webhookRepository.listPreApproval(this.#db)).map(toPreApprovalView);
  }

  async getPreApproval(webhookKey: string): Promise<PreApprovalView> {
    return toPreApprovalView(findPreApproval(await webhookRepository.listPreApproval(this.#db), webhookKey));
  }

  /** Changes the name or the connection of one pre-approval webhook; its place in the list stays. */
  async updatePreApproval(
    by: ChangeActor,
    webhookKey: string,
    changes: PreApprovalPatchBody,
  ): Promise<PreApprovalView> {
    return this.#db.transaction(async (tx) => {
      await webhookRepository.lockPreApproval(tx);
      const target = findPreApproval(await webhookRepository.listPreApproval(tx), webhookKey);
      if (changes.connection_config_key !== undefined) {
        await assertConnectionsExist(tx, [{ connection_config_key: changes.connection_config_key }]);
      }
      await webhookRepository.updatePreApproval(tx, target.id, {
        key: target.key,
        name: changes.name ?? target.name,
        connectionKey: changes.connection_config_key ?? target.connection_key,
        position: target.position,
      });
      await recordChange(tx, by, 'webhook.pre-approval.update', {
        key: webhookKey,
        fields: Object.keys(changes),
      });
      return toPreApprovalView(findPreApproval(await webhookRepository.listPreApproval(tx), webhookKey));
    });
  }

  /** Removes one pre-approval webhook; the ones after it move up. Answers the resulting order. */
  async removePreApproval(by: ChangeActor, webhookKey: string) {
    return this.#db.transaction(async (tx) => {
      await webhookRepository.lockPreApproval(tx);
      const rows = await webhookRepository.listPreApproval(tx);
      const target = findPreApproval(rows, webhookKey);
      await webhookRepository.removePreApproval(tx, [target.id]);
      for (const row of rows) {
        if (row.position > target.position) {
          await webhookRepository.updatePreApproval(tx, row.id, {
            key: row.key,
            name: row.name,
            connectionKey: row.connection_key,
            position: row.position - 1,
          });
        }
      }
      const after = await webhookRepository.listPreApproval(tx);
      await recordChange(tx, by, 'webhook.pre-approval.delete', {
        key: webhookKey,
        order: after.map((row) => row.key),
      });
      return { new_order: after.map((row) => ({ key: row.key, order: row.position })) };
    });
  }

  /** Replaces the pre-approval list, as `replace` does for a policy's list. */
  async replacePreApproval(by: ChangeActor, items: readonly PreApprovalItem[]): Promise<PreApprovalView[]> {
    return this.#db.transaction(async (tx) => {
      await webhookRepository.lockPreApproval(tx);
      assertDistinctKeys(items, 'the pre-approval webhooks');
      await assertConnectionsExist(tx, items);
      const existing = await webhookRepository.listPreApproval(tx);
      const wanted = new Set(items.map((item) => item.key));
      await webhookRepository.removePreApproval(
        tx,
        existing.filter((row) => !wanted.has(row.key)).map((row) => row.id),
      );
      const byKey = new Map(existing.map((row) => [row.key, row]));
      for (const [position, item] of items.entries()) {
        const write = { key: item.key, name: item.name, connectionKey: item.connection_config_key, position };
        const current = byKey.get(item.key);
        if (current) await webhookRepository.updatePreApproval(tx, current.id, write);
        else await webhookRepository.insertPreApproval(tx, { ...write, id: `paw_${randomUUID()}` });
      }
      await recordChange(tx, by, 'webhook.pre-approval.replace', {
        order: items.map((item) => item.key),
        removed: existing.filter((row) => !wanted.has(row.key)).map((row) => row.key),
      });
      return (await webhookRepository.listPreApproval(tx)).map(toPreApprovalView);
    });
  }

  async #policyId(db: Queryable, policyKey: string, lock: boolean): Promise<string> {
    const id = lock
      ? await webhookRepository.lockPolicy(db, policyKey)
      : await webhookRepository.policyId(db, policyKey);
    if (!id) throw notFound(`No policy with key ${policyKey}.`);
    return id;
  }
}

function findWebhook(rows: WebhookRow[], webhookKey: string, policyKey: string, timing: Timing): WebhookRow {
  const row = rows.find((candidate) => candidate.key === webhookKey);
  if (!row)
    throw notFound(`No ${TIMING_NAMES[timing]} webhook with key ${webhookKey} on policy ${policyKey}.`);
  return row;
}

function findPreApproval(rows: PreApprovalRow[], webhookKey: string): PreApprovalRow {
  const row = rows.find((candidate) => candidate.key === webhookKey);
  if (!row) throw notFound(`No pre-approval webhook with key ${webhookKey}.`);
  return row;
}

function assertDistinctKeys(items: readonly { key: string }[], list: string) {
  const seen = new Set<string>();
  for (const { key } of items) {
    if (seen.has(key)) throw invalid(`key ${key} appears more than once; keys are unique within ${list}.`);
    seen.add(key);
  }
}

async function assertConnectionsExist(tx: Queryable, items: readonly { connection_config_key: string }[]) {
  const wanted = [...new Set(items.map((item) => item.connection_config_key))];
  const existing = await webhookRepository.existingConnections(tx, wanted);
  const missing = wanted.filter((key) => !existing.has(key));
  if (missing.length === 1) throw notFound(`No connection with key ${missing[0]}.`);
  if (missing.length > 1) throw notFound(`No connections with keys ${missing.join(', ')}.`);
}

function embedded(row: PreApprovalRow) {
  return {
    key: row.connection_key,
    name: row.connection_name,
    connection_type: row.connection_type,
    access: row.connection_access,
  };
}

function toWebhookView(row: WebhookRow): WebhookView {
  return {
    key: row.key,
    name: row.name,
    direction: row.direction,
    order: row.position,
    connection_config_key: row.connection_key,
    connection_config: embedded(row),
  };
}

function toPreApprovalView(row: PreApprovalRow): PreApprovalView {
  return {
    key: row.key,
    name: row.name,
    order: row.position,
    connection_config_key: row.connection_key,
    connection_config: embedded(row),
  };
}
