// SQL for privacy_request_steps: the execution plan snapshotted when a request is approved, one row a
// step, and what the executor and the reviewers record on it.
import type { Queryable } from '../db/database.ts';

export type StepKind = 'pre_approval' | 'pre' | 'rules' | 'post';

export interface StepRow {
  privacy_request_id: string;
  position: number;
  kind: StepKind;
  webhook_id: string | null;
  webhook_key: string | null;
  webhook_name: string | null;
  direction: 'one_way' | 'two_way' | null;
  connection_key: string | null;
  completed_at: Date | null;
  answer: 'eligible' | 'not_eligible' | null;
  answered_at: Date | null;
}

export interface NewStep {
  kind: StepKind;
  webhookId: string | null;
  webhookKey: string | null;
  webhookName: string | null;
  direction: 'one_way' | 'two_way' | null;
  connectionKey: string | null;
}

export const stepRepository = {
  async insertSteps(tx: Queryable, id: string, from: number, steps: readonly NewStep[]): Promise<void> {
    await stepRepository.insertPlans(tx, [{ id, from, steps }]);
  },

  /** The steps of several requests in one statement; each request's steps get positions from `from` on. */
  async insertPlans(
    tx: Queryable,
    plans: readonly { id: string; from: number; steps: readonly NewStep[] }[],
  ): Promise<void> {
    const rows = plans.flatMap((plan) =>
      plan.steps.map((step, index) => ({ ...step, id: plan.id, position: plan.from + index })),
    );
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO privacy_request_steps
         (privacy_request_id, position, kind, webhook_id, webhook_key, webhook_name, direction, connection_key)
       SELECT step->>'id', (step->>'position')::int, step->>'kind', step->>'webhookId', step->>'webhookKey',
              step->>'webhookName', step->>'direction', step->>'connectionKey'
         FROM jsonb_array_elements($1::jsonb) AS plan(step)`,
      [JSON.stringify(rows)],
    );
  },

  async steps(db: Queryable, id: string): Promise<StepRow[]> {
    const { rows } = await db.query<StepRow>(
      'SELECT * FROM privacy_request_steps WHERE privacy_request_id = $1 ORDER BY position',
      [id],
    );
    return rows;
  },

  async reopenStep(tx: Queryable, id: string, position: number): Promise<void> {
    await tx.query(
      `UPDATE privacy_request_steps SET completed_at = NULL
        WHERE privacy_request_id = $1 AND position = $2`,
      [id, position],
    );
  },

  async answerStep(tx: Queryable, id: string, position: number, answer: 'eligible' | 'not_eligible') {
    await tx.query(
      `UPDATE privacy_request_steps SET answer = $3, answered_at = now()
        WHERE privacy_request_id = $1 AND position = $2`,
      [id, position, answer],
    );
  },
};
