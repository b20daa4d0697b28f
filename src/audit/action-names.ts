// One naming scheme for audit actions: `<thing>.<verb>` (more dots for a part of the thing), each word in
// lower-case kebab-case like the scopes (`privacy-request.approve`, `api-key.issue`,
// `connection.signing-secret.rotate`). Two writers still use an older spelling, `privacy_request.access`
// and `privacy_request.erasure` (src/privacy-requests/rules/run-repository.ts, whose erasure check reads
// its own entries back by that name). Rather than rewrite an append-only log, readers see one scheme
// through this mapping: listings answer the canonical name and a filter by a family matches both
// spellings. The day those writers change (and old entries are renamed by a migration), this goes.

/** Old spelling -> canonical name, per family prefix. */
const LEGACY_FAMILIES: ReadonlyMap<string, string> = new Map([['privacy_request', 'privacy-request']]);

/** The action as the scheme names it (entries written under an old spelling included). */
export function canonicalAction(action: string): string {
  const dot = action.indexOf('.');
  const family = dot < 0 ? action : action.slice(0, dot);
  const canonical = LEGACY_FAMILIES.get(family);
  return canonical === undefined ? action : canonical + action.slice(family.length);
}

/**
 * Every stored spelling a filter by `action` (an action or a family, in either spelling) must match: the
 * canonical name and, where the family had another spelling, that one too.
 */
export function storedSpellings(action: string): string[] {
  const named = canonicalAction(action);
  const spellings = [named];
  for (const [legacy, canonical] of LEGACY_FAMILIES) {
    if (named === canonical || named.startsWith(`${canonical}.`)) {
      spellings.push(legacy + named.slice(canonical.length));
    }
  }
  return spellings;
}
