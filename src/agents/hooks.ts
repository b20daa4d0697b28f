// What authorized agents take part in, in a privacy request's life (src/privacy-requests/lifecycle.ts): an
// operator's request may name the agent it is made for (`agent` of POST /v1/privacy-request); it is
// submitted_by authorized_agent, and the agent is recorded as authorised by the operator's power of attorney.
import Type from 'typebox';
import type { LifecycleHooks } from '../privacy-requests/lifecycle.ts';
import { AGENT_NAME_MAX_LENGTH, recordOperatorAgent, SUBMITTED_BY_AGENT } from './service.ts';

const AgentItem = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: AGENT_NAME_MAX_LENGTH }),
    email: Type.String({ minLength: 3, maxLength: 320, format: 'email' }),
  },
  {
    additionalProperties: false,
    description:
      "The authorized agent the operator acts on behalf of (a power of attorney the operator holds): recorded, submitted_by authorized_agent, and the request runs as the operator's.",
  },
);

export const agentHooks: LifecycleHooks = {
  receipt: {
    field: 'agent',
    schema: AgentItem,
    submittedBy: SUBMITTED_BY_AGENT,
    async received(tx, services, { row, value, by }) {
      const agent = value as Type.Static<typeof AgentItem>;
      await recordOperatorAgent(
        tx,
        services,
        row.id,
        { name: agent.name.trim(), email: agent.email.trim() },
        by,
      );
    },
  },
};
