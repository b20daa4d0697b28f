// How an email address appears in the request's log and in process logs: its first letter, the first
// letter of its domain and the top-level domain ("j***@e***.com"), enough to tell two recipients apart
// and never enough to read the address.

export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const topLevel = dot > 0 ? domain.slice(dot) : '';
  return `${local.slice(0, 1)}***@${domain.slice(0, 1)}***${topLevel}`;
}
