// The statuses of a privacy request (the seed's PrivacyRequestStatus), shared by the schemas, the
// service, the executor and the repositories.
export type Status =
  | 'identity_unverified'
  | 'requires_input'
  | 'pending'
  | 'approved'
  | 'denied'
  | 'in_processing'
  | 'paused'
  | 'complete'
  | 'canceled'
  | 'error';

export const STATUSES: readonly Status[] = [
  'identity_unverified',
  'requires_input',
  'pending',
  'approved',
  'denied',
  'in_processing',
  'paused',
  'complete',
  'canceled',
  'error',
];

/** Statuses a request never leaves on its own: it has been answered, refused or withdrawn. */
export const CLOSED_STATUSES: readonly Status[] = ['complete', 'denied', 'canceled'];
