// The console's frame: the sign-in gate, the navigation and the client routes under /console.
import { Link, Route, Router, Switch, useRoute } from 'wouter';
import { SessionGate, useSession } from './session.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { RequestsPage } from './pages/requests.tsx';
import { RequestDetailPage } from './pages/request-detail.tsx';
import { PoliciesPage } from './pages/policies.tsx';
import { PolicyDetailPage } from './pages/policy-detail.tsx';
import { ConnectionsPage } from './pages/connections.tsx';
import { ConnectionDetailPage } from './pages/connection-detail.tsx';
import { DatastoresPage } from './pages/datastores.tsx';
import { AuditLogPage } from './pages/audit-log.tsx';
import { OutboxPage } from './pages/outbox.tsx';
import { PrivacyCenterPage } from './pages/privacy-center.tsx';

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

function Frame() {
  const { info, signOut } = useSession();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand">Lethe</span>
        <nav aria-label="Sections">
          <NavLink href="/requests">Privacy requests</NavLink>
          <NavLink href="/policies">Policies</NavLink>
          <NavLink href="/connections">Connections</NavLink>
          <NavLink href="/datastores">Datastores &amp; keys</NavLink>
          <NavLink href="/privacy-center">Privacy center</NavLink>
          <NavLink href="/outbox">Outbox</NavLink>
          <NavLink href="/audit-log">Audit log</NavLink>
        </nav>
        <span className="who">
          <span className="hint">{info.client_id}</span>
          <button type="button" onClick={() => signOut('You signed out.')}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main">
        <Switch>
          <Route path="/requests" component={RequestsPage} />
          <Route path="/requests/:id">{(params) => <RequestDetailPage id={params.id} />}</Route>
          <Route path="/policies" component={PoliciesPage} />
          <Route path="/policies/:key">{(params) => <PolicyDetailPage policyKey={params.key} />}</Route>
          <Route path="/connections" component={ConnectionsPage} />
          <Route path="/connections/:key">
            {(params) => <ConnectionDetailPage connectionKey={params.key} />}
          </Route>
          <Route path="/datastores" component={DatastoresPage} />
          <Route path="/privacy-center" component={PrivacyCenterPage} />
          <Route path="/outbox" component={OutboxPage} />
          <Route path="/audit-log" component={AuditLogPage} />
          <Route component={RequestsPage} />
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
