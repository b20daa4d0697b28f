// The features that plug into a privacy request's life, registered once at start: the action types of
// DSR rules (src/actions/registry.ts), in the order a run runs them, and the lifecycle hooks
// (src/privacy-requests/lifecycle.ts) of tasks, access delivery, verification, agents and events. The core reads
// these registries; it never names a feature. createServices calls this before anything reads them (the
// routes' schemas are built from them); registering again replaces in place.
import { registerActionType } from '../actions/registry.ts';
import { accessDeliveryHooks } from '../access-delivery/hooks.ts';
import { agentHooks } from '../agents/hooks.ts';
import { consentAction } from '../consent/action.ts';
import { eventHooks } from '../events/hooks.ts';
import { updateAction } from '../corrections/action.ts';
import { registerLifecycleHooks } from '../privacy-requests/lifecycle.ts';
import { accessAction } from '../privacy-requests/rules/access-action.ts';
import { erasureAction } from '../privacy-requests/rules/erasure-action.ts';
import { taskHooks } from '../tasks/hooks.ts';
import { verificationHooks } from '../verification/hooks.ts';

export function registerFeatures(): void {
  // Consent and corrections first, then the access package, then erasure (it must not erase first).
  for (const action of [consentAction, updateAction, accessAction, erasureAction]) registerActionType(action);
  registerLifecycleHooks('tasks', taskHooks);
  registerLifecycleHooks('access-delivery', accessDeliveryHooks);
  registerLifecycleHooks('verification', verificationHooks);
  registerLifecycleHooks('agents', agentHooks);
  // Last: its events report what the other features did in the same change.
  registerLifecycleHooks('events', eventHooks);
}
