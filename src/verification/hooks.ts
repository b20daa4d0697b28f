// What identity verification takes part in, in a privacy request's life (src/privacy-requests/
// lifecycle.ts): a request that leaves identity_unverified (verified, or canceled) has no use for its code
// any more; the statement that moves it deletes the code too.
import type { LifecycleHooks } from '../privacy-requests/lifecycle.ts';
import { removeCodesOf } from './repository.ts';

export const verificationHooks: LifecycleHooks = {
  onStatusChange: ({ from }) =>
    from === 'identity_unverified' ? (changed) => [removeCodesOf(changed)] : undefined,
};
