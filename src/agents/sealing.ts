// The one owner of the authorized-agent key: an agent's name and email are sealed, bound to their request,
// so that the agents table holds no readable personal value.
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';

export interface Agent {
  name: string;
  email: string;
}

const aad = (privacyRequestId: string) => `privacy-request:${privacyRequestId}:agent`;

export function sealAgent(keyring: Keyring, privacyRequestId: string, agent: Agent): Buffer {
  return seal(
    keyring.secretKey('authorized-agent'),
    JSON.stringify({ name: agent.name, email: agent.email }),
    aad(privacyRequestId),
  );
}

export function openAgent(keyring: Keyring, privacyRequestId: string, sealed: Uint8Array): Agent {
  return JSON.parse(openText(keyring.secretKey('authorized-agent'), sealed, aad(privacyRequestId))) as Agent;
}
