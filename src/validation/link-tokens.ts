// Tokens that act (a download, a confirm-agent, an appeal or a respondent link: 32 random bytes, 43 base64url
// characters) are secrets wherever a link is shown or logged. This finds them in a path or a text by their
// shape, after a slash, so that a new kind of link is masked without being listed: request and entity ids
// (a UUID, `pri_` and a UUID) are shorter and stay readable.
export const TOKEN_MASK = '***';

const TOKEN_AFTER_SLASH = /\/[A-Za-z0-9_-]{43,}(?=$|[^A-Za-z0-9_-])/g;

/** `text` with every link token replaced by `***` (the slash before it kept). */
export function maskLinkTokens(text: string): string {
  return text.replace(TOKEN_AFTER_SLASH, `/${TOKEN_MASK}`);
}
