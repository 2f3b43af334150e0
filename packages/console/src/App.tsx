import { type ReactNode, useEffect, useState } from 'react';
import { consoleApi, onSignedOut, type Session } from './api';
import { ErrorNote, Loading } from './components/common';
import { Link, match, navigate, useLocation } from './router';
import { ChatScreen } from './screens/Chat';
import { DocumentScreen } from './screens/Document';
import { KeysScreen } from './screens/Keys';
import { OverviewScreen } from './screens/Overview';
import { RunScreen } from './screens/Run';
import { SearchScreen } from './screens/Search';
import { SignIn } from './screens/SignIn';
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
  ['/runs/:id', (p) => <RunScreen key={p.id} id={p.id!} />],
  ['/documents/:id', (p) => <DocumentScreen key={p.id} id={p.id!} />],
  ['/keys', () => <KeysScreen />],
];

function Screen({ path }: { path: string }) {
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no screen at <code>{path}</code>. <Link to="/">Go to the overview</Link>.
      </p>
    </section>
  );
}

function NavLink({ to, path, children }: { to: string; path: string; children: string }) {
  const current = to === '/' ? path === '/' : path.startsWith(to);
  return (
    <Link to={to} className={current ? 'current' : undefined} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const { path } = useLocation();

  useEffect(() => {
    consoleApi.session().then(setSession, setError);
    return onSignedOut(() => setSession(null));
  }, []);

  const signOut = async () => {
    try {
      await consoleApi.signOut();
    } finally {
      setSession(null);
      navigate('/', { replace: true });
    }
  };

  if (error) return <ErrorNote error={error} title="The service cannot be reached" />;
  if (session === undefined) return <Loading />;
  if (session === null) return <SignIn onSignedIn={setSession} />;
  return (
    <>
      <header className="top">
        <Link to="/" className="brand">
          DocSlurp
        </Link>
        <nav aria-label="Main">
          <NavLink to="/" path={path}>
            Overview
          </NavLink>
          <NavLink to="/workspaces" path={path}>
            Workspaces
          </NavLink>
          <NavLink to="/keys" path={path}>
            API keys
          </NavLink>
        </nav>
        <div className="who">
          <span className="muted small" data-testid="user-email">
            {session.user.email}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main>
        <Screen path={path} />
      </main>
    </>
  );
}
