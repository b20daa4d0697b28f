// What a two_way pre-execution webhook may answer: nothing, or `{derived_identity?, halt?}`. Anything else
// fails the step with the reason, which the request's log shows.
import { type DerivedIdentity, derivedIdentityProblem } from '../identity.ts';

export interface TwoWayAnswer {
  derived: DerivedIdentity | undefined;
  halt: boolean;
}

/** A two_way answer: empty, or `{derived_identity?, halt?}`; a string says why it is not acceptable. */
export function parseTwoWayAnswer(text: string): TwoWayAnswer | string {
  if (text.trim() === '') return { derived: undefined, halt: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'not a JSON object';
  const answer = parsed as Record<string, unknown>;
  for (const key of Object.keys(answer)) {
    if (key !== 'derived_identity' && key !== 'halt') return `${key.slice(0, 64)} is not an accepted field`;
  }
  if (answer.halt !== undefined && typeof answer.halt !== 'boolean') return 'halt must be true or false';
  if (answer.derived_identity !== undefined && answer.derived_identity !== null) {
    const problem = derivedIdentityProblem(answer.derived_identity);
    if (problem) return problem;
  }
  return {
    derived: (answer.derived_identity ?? undefined) as DerivedIdentity | undefined,
    halt: answer.halt === true,
  };
}
