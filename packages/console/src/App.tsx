import { type ReactNode, useEffect, useRef, useState } from 'react';
import { consoleApi, onSignedOut, type Session } from './api';
import { ErrorNote, Loading } from './components/common';
import { isManager, SessionContext } from './lib/access';
import { useTitle } from './lib/hooks';
import { Link, match, navigate, useLocation } from './router';
import { AuditScreen } from './screens/Audit';
import { ChatScreen } from './screens/Chat';
import { DocumentScreen } from './screens/Document';
import { EvaluationScreen } from './screens/Evaluation';
import { GroupsScreen } from './screens/Groups';
import { KeysScreen } from './screens/Keys';
import { OverviewScreen } from './screens/Overview';
import { PeopleScreen } from './screens/People';
import { QualityScreen } from './screens/Quality';
import { RunScreen } from './screens/Run';
import { SearchScreen } from './screens/Search';
import { SignIn } from './screens/SignIn';
import { SourcesScreen } from './screens/Sources';
import { WebhookScreen } from './screens/Webhook';
import { WebhooksScreen } from './screens/Webhooks';
import { WorkspaceScreen } from './screens/Workspace';
import { WorkspacesScreen } from './screens/Workspaces';

// Keyed by id: moving from one document (or run…) to another starts the screen afresh, never showing
// the previous one's data meanwhile.
const ROUTES: [string, (p: Record<string, string>) => ReactNode][] = [
  ['/', () => <OverviewScreen />],
  ['/workspaces', () => <WorkspacesScreen />],
  ['/workspaces/:id', (p) => <WorkspaceScreen key={p.id} id={p.id!} />],
  ['/workspaces/:id/search', (p) => <SearchScreen key={p.id} workspaceId={p.id!} />],
  ['/workspaces/:id/chat', (p) => <ChatScreen key={p.id} workspaceId={p.id!} />],
  ['/workspaces/:id/sources', (p) => <SourcesScreen key={p.id} workspaceId={p.id!} />],
  ['/workspaces/:id/quality', (p) => <QualityScreen key={p.id} workspaceId={p.id!} />],
  [
    '/workspaces/:id/quality/:evaluation',
    (p) => <EvaluationScreen key={p.evaluation} workspaceId={p.id!} id={p.evaluation!} />,
  ],
  ['/runs/:id', (p) => <RunScreen key={p.id} id={p.id!} />],
  ['/documents/:id', (p) => <DocumentScreen key={p.id} id={p.id!} />],
  ['/keys', () => <KeysScreen />],
  ['/webhooks', () => <WebhooksScreen />],
  ['/webhooks/:id', (p) => <WebhookScreen key={p.id} id={p.id!} />],
  ['/people', () => <PeopleScreen />],
  ['/groups', () => <GroupsScreen />],
  ['/audit', () => <AuditScreen />],
];

function NotFound({ path }: { path: string }) {
  useTitle('Not found');
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no screen at <code>{path}</code>. <Link to="/">Go to the overview</Link>.
      </p>
    </section>
  );
}

function Screen({ path }: { path: string }) {
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return <NotFound path={path} />;
}

/** The section a screen belongs to: a workspace's runs and documents are under Workspaces. */
function sectionOf(path: string): string {
  if (path.startsWith('/workspaces') || path.startsWith('/runs/') || path.startsWith('/documents/'))
    return '/workspaces';
  if (path.startsWith('/keys')) return '/keys';
  if (path.startsWith('/webhooks')) return '/webhooks';
  if (path.startsWith('/people')) return '/people';
  if (path.startsWith('/groups')) return '/groups';
  if (path.startsWith('/audit')) return '/audit';
  return path === '/' ? '/' : '';
}

/** Moves the keyboard and screen readers to the main content, as a new page would. */
function focusMain() {
  document.getElementById('main')?.focus();
}
/** A link of the main navigation: `page` on the screen it opens, `true` on the screens of its section. */
function NavLink({ to, path, children }: { to: string; path: string; children: string }) {
  const current = path === to ? 'page' : sectionOf(path) === to ? 'true' : undefined;
  return (
    <Link to={to} className={current ? 'current' : undefined} aria-current={current}>
      {children}
    </Link>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const shownPath = useRef(path);
  const menuButton = useRef<HTMLButtonElement>(null);
  // Signed in just now (not a session found on load): the keyboard starts at the first screen's content.
  const signedIn = useRef(false);

  useEffect(() => {
    consoleApi.session().then(setSession, setError);
    return onSignedOut(() => setSession(null));
  }, []);

  // A new screen: the menu closes, and the keyboard and screen readers start at its content.
  useEffect(() => {
    if (shownPath.current === path) return;
    shownPath.current = path;
    setMenuOpen(false);
    focusMain();
  }, [path]);

  // Escape folds the phone menu, wherever the focus is, and gives the focus back to its button.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  useEffect(() => {
    if (session && signedIn.current) {
      signedIn.current = false;
      focusMain();
    }
  }, [session]);

  const signOut = async () => {
    let endSessionUrl: string | undefined;
    try {
      endSessionUrl = await consoleApi.signOut();
    } finally {
      // Signed in through the identity provider: its session ends too, or "Sign in with …" would
      // sign the person straight back in. The provider sends the browser back to the console.
      if (endSessionUrl) window.location.assign(endSessionUrl);
      else {
        setSession(null);
        navigate('/', { replace: true });
      }
    }
  };

  if (error) return <ErrorNote error={error} title="The service cannot be reached" />;
  if (session === undefined) return <Loading />;
  if (session === null)
    return (
      <SignIn
        onSignedIn={(s) => {
          signedIn.current = true;
          setSession(s);
        }}
      />
    );
  // Keys, webhooks, people, groups and the audit log are for owners and admins: nobody else is shown them.
  const manager = isManager(session.user);
  return (
    <SessionContext value={session.user}>
      {/* The browser moves focus to the target (focusable with tabIndex -1) by itself. */}
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className={menuOpen ? 'top open' : 'top'}>
        <Link to="/" className="brand">
          DocSlurp
        </Link>
        {/* On a narrow screen the navigation folds behind this button. */}
        <button
          ref={menuButton}
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="top-menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <div className="top-menu" id="top-menu">
          <nav aria-label="Main">
            <NavLink to="/" path={path}>
              Overview
            </NavLink>
            <NavLink to="/workspaces" path={path}>
              Workspaces
            </NavLink>
            {manager ? (
              <>
                <NavLink to="/webhooks" path={path}>
                  Webhooks
                </NavLink>
                <NavLink to="/keys" path={path}>
                  API keys
                </NavLink>
                <NavLink to="/people" path={path}>
                  People
                </NavLink>
                <NavLink to="/groups" path={path}>
                  Groups
                </NavLink>
                <NavLink to="/audit" path={path}>
                  Audit log
                </NavLink>
              </>
            ) : null}
          </nav>
          <div className="who">
            <span className="muted small" data-testid="user-email">
              {session.user.email}
            </span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Screen path={path} />
      </main>
    </SessionContext>
  );
}
