// SQL for the ordered webhook lists: policy pre/post-execution webhooks and pre-approval webhooks. `position`
// is the API's `order`; the position unique constraints are deferred, so a transaction may pass through
// duplicate positions while it reorders, as long as the list is contiguous again at commit.
import type { Queryable } from '../db/database.ts';

export type Timing = 'pre' | 'post';

export interface PreApprovalRow {
  id: string;
  key: string;
  name: string;
  position: number;
  connection_key: string;
  connection_name: string;
  connection_type: string;
  connection_access: string;
}

export interface WebhookRow extends PreApprovalRow {
  direction: string;
}

export interface WebhookWrite {
  key: string;
  name: string;
  connectionKey: string;
  position: number;
}

const CONNECTION_COLUMNS = `c.name AS connection_name, c.connection_type, c.access AS connection_access`;

/** A policy webhook as an execution plan snapshots it. */
export interface PolicyWebhookRow {
  id: string;
  key: string;
  name: string;
  direction: 'one_way' | 'two_way';
  connection_key: string;
  timing: 'pre' | 'post';
}

export const webhookRepository = {
  /** Locks the policy row so that concurrent changes to its webhook lists run one after the other. */
  async lockPolicy(db: Queryable, policyKey: string): Promise<string | undefined> {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM policies WHERE key = $1 FOR UPDATE', [
      policyKey,
    ]);
    return rows[0]?.id;
  },

  async policyId(db: Queryable, policyKey: string): Promise<string | undefined> {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM policies WHERE key = $1', [policyKey]);
    return rows[0]?.id;
  },

  /** Which of the named connections exist, share-locked so none can be deleted before the transaction ends. */
  async existingConnections(db: Queryable, keys: readonly string[]): Promise<Set<string>> {
    const { rows } = await db.query<{ key: string }>(
      'SELECT key FROM connections WHERE key = ANY($1::text[]) FOR SHARE',
      [keys],
    );
    return new Set(rows.map((row) => row.key));
  },

  async listPolicyWebhooks(db: Queryable, policyId: string, timing: Timing): Promise<WebhookRow[]> {
    const { rows } = await db.query<WebhookRow>(
      `SELECT w.id, w.key, w.name, w.direction, w.position, w.connection_key, ${CONNECTION_COLUMNS}
         FROM policy_webhooks w JOIN connections c ON c.key = w.connection_key
        WHERE w.policy_id = $1 AND w.timing = $2
        ORDER BY w.position`,
      [policyId, timing],
    );
    return rows;
  },

  async insertPolicyWebhook(
    db: Queryable,
    webhook: WebhookWrite & { id: string; policyId: string; timing: Timing; direction: string },
  ): Promise<void> {
    await db.query(
      `INSERT INTO policy_webhooks (id, policy_id, timing, key, name, direction, connection_key, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        webhook.id,
        webhook.policyId,
        webhook.timing,
        webhook.key,
        webhook.name,
        webhook.direction,
        webhook.connectionKey,
        webhook.position,
      ],
    );
  },

  async updatePolicyWebhook(db: Queryable, id: string, webhook: WebhookWrite & { direction: string }) {
    await db.query(
      `UPDATE policy_webhooks
          SET name = $2, direction = $3, connection_key = $4, position = $5, updated_at = now()
        WHERE id = $1`,
      [id, webhook.name, webhook.direction, webhook.connectionKey, webhook.position],
    );
  },

  async movePolicyWebhook(db: Queryable, id: string, position: number) {
    await db.query('UPDATE policy_webhooks SET position = $2, updated_at = now() WHERE id = $1', [
      id,
      position,
    ]);
  },

  async removePolicyWebhooks(db: Queryable, ids: readonly string[]) {
    await db.query('DELETE FROM policy_webhooks WHERE id = ANY($1::text[])', [ids]);
  },

  /** Serialises changes to the one pre-approval list (it has no parent row to lock). */
  async lockPreApproval(db: Queryable) {
    await db.query('LOCK TABLE pre_approval_webhooks IN EXCLUSIVE MODE');
  },

  async listPreApproval(db: Queryable): Promise<PreApprovalRow[]> {
    const { rows } = await db.query<PreApprovalRow>(
      `SELECT w.id, w.key, w.name, w.position, w.connection_key, ${CONNECTION_COLUMNS}
         FROM pre_approval_webhooks w JOIN connections c ON c.key = w.connection_key
        ORDER BY w.position`,
    );
    return rows;
  },

  async insertPreApproval(db: Queryable, webhook: WebhookWrite & { id: string }) {
    await db.query(
      `INSERT INTO pre_approval_webhooks (id, key, name, connection_key, position) VALUES ($1, $2, $3, $4, $5)`,
      [webhook.id, webhook.key, webhook.name, webhook.connectionKey, webhook.position],
    );
  },

  async updatePreApproval(db: Queryable, id: string, webhook: WebhookWrite) {
    await db.query(
      'UPDATE pre_approval_webhooks SET name = $2, connection_key = $3, position = $4 WHERE id = $1',
      [id, webhook.name, webhook.connectionKey, webhook.position],
    );
  },

  async removePreApproval(db: Queryable, ids: readonly string[]) {
    await db.query('DELETE FROM pre_approval_webhooks WHERE id = ANY($1::text[])', [ids]);
  },

  /** The webhooks a request's plan is made of: one policy's, pre-execution then post-execution. */
  async webhooksOfPolicy(db: Queryable, policyId: string): Promise<PolicyWebhookRow[]> {
    return (await webhookRepository.webhooksOfPolicies(db, [policyId])).get(policyId) ?? [];
  },

  /** The webhooks of each policy, pre-execution then post-execution, each in order. */
  async webhooksOfPolicies(
    db: Queryable,
    policyIds: readonly string[],
  ): Promise<Map<string, PolicyWebhookRow[]>> {
    const { rows } = await db.query<PolicyWebhookRow & { policy_id: string }>(
      `SELECT policy_id, id, key, name, direction, connection_key, timing FROM policy_webhooks
        WHERE policy_id = ANY($1::text[]) ORDER BY policy_id, timing DESC, position`,
      [[...new Set(policyIds)]],
    );
    const byPolicy = new Map<string, PolicyWebhookRow[]>();
    for (const { policy_id: policyId, ...webhook } of rows) {
      byPolicy.set(policyId, [...(byPolicy.get(policyId) ?? []), webhook]);
    }
    return byPolicy;
  },

  async preApprovalWebhooks(db: Queryable): Promise<Omit<PolicyWebhookRow, 'direction' | 'timing'>[]> {
    const { rows } = await db.query<Omit<PolicyWebhookRow, 'direction' | 'timing'>>(
      'SELECT id, key, name, connection_key FROM pre_approval_webhooks ORDER BY position',
    );
    return rows;
  },
};
