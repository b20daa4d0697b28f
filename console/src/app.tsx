// The console's frame: the sign-in gate, the navigation and the client routes under /console. A page the
// sign-in cannot read (or the bare /console) sends it to its landing section (sections.ts).
import { useEffect, useState } from 'react';
import { Link, Route, Router, Switch, useLocation, useRoute } from 'wouter';
import { SessionGate, useSession } from './session.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { canRead, landingFor, SECTIONS } from './sections.ts';
import { RequestsPage } from './pages/requests.tsx';
import { RequestDetailPage } from './pages/request-detail.tsx';
import { PoliciesPage } from './pages/policies.tsx';
import { PolicyDetailPage } from './pages/policy-detail.tsx';
import { ConnectionsPage } from './pages/connections.tsx';
import { ConnectionDetailPage } from './pages/connection-detail.tsx';
import { DatastoresPage } from './pages/datastores.tsx';
import { DatastoreEntitiesPage } from './pages/datastore-entities.tsx';
import { AuditLogPage } from './pages/audit-log.tsx';
import { UsersPage } from './pages/users.tsx';
import { ClientsPage } from './pages/clients.tsx';
import { EventsPage } from './pages/events.tsx';
import { OutboxPage } from './pages/outbox.tsx';
import { RecordsPage } from './pages/records.tsx';
import { PrivacyCenterPage } from './pages/privacy-center.tsx';
import { TasksPage } from './pages/tasks.tsx';
import { ManualSystemsPage } from './pages/manual-systems.tsx';
import { FirstStepsPage } from './pages/first-steps.tsx';

function NavLink(props: { href: string; children: string }) {
  const [exact] = useRoute(props.href);
  const [nested] = useRoute(`${props.href}/*`);
  const current = exact || nested;
  return (
    <Link
      href={props.href}
      className={current ? 'current' : undefined}
      aria-current={current ? 'page' : undefined}
    >
      {props.children}
    </Link>
  );
}

/**
 * When a session starts (a sign-in, or a reload that restored one), sends it from a page it cannot read,
 * or from no page at all, to its landing section. Later clicks to a page it cannot read show the API's
 * 403 sentence there, as before.
 */
function useLanding() {
  const { info } = useSession();
  const [location, setLocation] = useLocation();
  const [start] = useState(() => ({ location, scopes: info.scopes }));
  useEffect(() => {
    if (!canRead(start.scopes, start.location)) setLocation(landingFor(start.scopes), { replace: true });
  }, [start, setLocation]);
}

/** A path outside every section: on to the landing section. */
function Landing() {
  const { info } = useSession();
  const [, setLocation] = useLocation();
  useEffect(() => setLocation(landingFor(info.scopes), { replace: true }), [info.scopes, setLocation]);
  return null;
}

function Frame() {
  const { info, signOut } = useSession();
  useLanding();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand">Lethe</span>
        <nav aria-label="Sections">
          {SECTIONS.map((section) => (
            <NavLink key={section.href} href={section.href}>
              {section.label}
            </NavLink>
          ))}
        </nav>
        <span className="who">
          <span className="hint">{info.username ?? info.client_id}</span>
          <button type="button" onClick={() => signOut('You signed out.')}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main">
        <Switch>
          <Route path="/start" component={FirstStepsPage} />
          <Route path="/requests" component={RequestsPage} />
          <Route path="/tasks" component={TasksPage} />
          <Route path="/manual-systems" component={ManualSystemsPage} />
          <Route path="/requests/:id">{(params) => <RequestDetailPage id={params.id} />}</Route>
          <Route path="/policies" component={PoliciesPage} />
          <Route path="/policies/:key">{(params) => <PolicyDetailPage policyKey={params.key} />}</Route>
          <Route path="/connections" component={ConnectionsPage} />
          <Route path="/connections/:key">
            {(params) => <ConnectionDetailPage connectionKey={params.key} />}
          </Route>
          <Route path="/datastores" component={DatastoresPage} />
          <Route path="/datastores/:name/entities">
            {(params) => <DatastoreEntitiesPage datastore={params.name} />}
          </Route>
          <Route path="/privacy-center" component={PrivacyCenterPage} />
          <Route path="/outbox" component={OutboxPage} />
          <Route path="/events" component={EventsPage} />
          <Route path="/records" component={RecordsPage} />
          <Route path="/audit-log" component={AuditLogPage} />
          <Route path="/users" component={UsersPage} />
          <Route path="/clients" component={ClientsPage} />
          <Route>{() => <Landing />}</Route>
        </Switch>
      </main>
    </>
  );
}

export function App() {
  return (
    <Router base="/console">
      <SessionGate signIn={(start, message) => <SignInPage start={start} message={message} />}>
        <Frame />
      </SessionGate>
    </Router>
  );
}
