// The console's sections, in the navigation's order, each with the scope that lets a sign-in read it.
// The navigation is drawn from this list and a sign-in lands on the first section its scopes can read
// (an approver on the privacy requests, an account manager without read scopes on Users), so nobody opens
// on a page that only says 403.
import { holds } from './session.tsx';

export interface Section {
  href: string;
  label: string;
  /** The scope the section's main list needs (`x:*` also grants `x:read`). */
  reads: string;
}

export const SECTIONS: readonly Section[] = [
  // Sign-ins that configure Lethe land on what to do first (issue 37); approvers and viewers do not.
  { href: '/start', label: 'First steps', reads: 'policy:create_or_update' },
  { href: '/requests', label: 'Privacy requests', reads: 'privacy-request:read' },
  { href: '/tasks', label: 'Tasks', reads: 'task:read' },
  { href: '/manual-systems', label: 'Manual systems', reads: 'manual-system:read' },
  { href: '/policies', label: 'Policies', reads: 'policy:read' },
  { href: '/connections', label: 'Connections', reads: 'connection:read' },
  { href: '/datastores', label: 'Datastores & keys', reads: 'datastore:read' },
  { href: '/privacy-center', label: 'Privacy center', reads: 'privacy-center:read' },
  { href: '/outbox', label: 'Outbox', reads: 'privacy-request:read' },
  { href: '/events', label: 'Events', reads: 'event-subscription:read' },
  { href: '/records', label: 'Records', reads: 'privacy-request:read' },
  { href: '/audit-log', label: 'Audit log', reads: 'audit-log:read' },
  { href: '/users', label: 'Users', reads: 'user:read' },
  { href: '/clients', label: 'Clients', reads: 'client:read' },
];

/** The section a path belongs to (`/requests/abc` is in `/requests`), if any. */
export function sectionOf(path: string): Section | undefined {
  return SECTIONS.find((section) => path === section.href || path.startsWith(`${section.href}/`));
}

/** Where a sign-in with these scopes lands: the first section it can read, else the first section. */
export function landingFor(scopes: readonly string[]): string {
  return (SECTIONS.find((section) => holds(scopes, section.reads)) ?? SECTIONS[0])?.href ?? '/requests';
}

/** Whether the sign-in can read the page at `path` (a path outside every section is not readable). */
export function canRead(scopes: readonly string[], path: string): boolean {
  const section = sectionOf(path);
  return section !== undefined && holds(scopes, section.reads);
}
