// What a request gives for its actions beside its identity (consent_preferences, corrections: each action
// type's input, src/actions/registry.ts): checked and stored at intake (intake.ts), opened for the rule run
// and the callbacks (the executor). Only the action types' own modules know what an input holds; sealed
// inputs are opened only here, for those two readers.
import { actionInputs } from '../actions/registry.ts';
import type { InputColumns } from '../actions/registry.ts';
import type { Keyring } from '../crypto/keyring.ts';

/** Each action type's input of the request, opened, under the type's name. */
export function openActionInputs(keyring: Keyring, row: InputColumns): Record<string, unknown> {
  return Object.fromEntries(actionInputs().map(({ name, input }) => [name, input.open(keyring, row)]));
}

/** What the callbacks' body carries of the request's inputs (the corrections a receiver may also write). */
export function callbackInputs(keyring: Keyring, row: InputColumns): Record<string, unknown> {
  return Object.assign(
    {},
    ...actionInputs().map(({ input }) => input.inCallback?.(input.open(keyring, row)) ?? {}),
  ) as Record<string, unknown>;
}
