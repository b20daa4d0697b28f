// The shapes of the data subject's side as the console reads them: the privacy center settings and the
// outbox of messages to subjects.

export type InputRequirement = 'required' | 'optional';

export interface PrivacyCenterAction {
  policy_key: string;
  title: string;
  description: string;
  identity_inputs: { email?: InputRequirement; phone_number?: InputRequirement };
}

export interface PrivacyCenterSettings {
  title: string;
  organization_name: string;
  actions: PrivacyCenterAction[];
}

export interface OutboxMessage {
  id: string;
  privacy_request_id: string | null;
  kind: 'verification_code' | 'received' | 'denied' | 'completed' | 'canceled';
  state: 'pending' | 'sent';
  to: string;
  subject: string;
  /** null once delivered: the bodies are purged (body_purged). */
  text: string | null;
  html: string | null;
  body_purged: boolean;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}
