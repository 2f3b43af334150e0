import { type FormEvent, useRef, useState } from 'react';
import { consoleApi, type Session } from '../api';
import { ErrorNote, Loading } from '../components/common';
import { useLoad, useTitle } from '../lib/hooks';

/** Where "Sign in with …" goes: the provider's sign-in, coming back to the screen the person asked for. */
function providerHref(signInUrl: string): string {
  const here = window.location.pathname + window.location.search;
  return here === '/' ? signInUrl : `${signInUrl}?${new URLSearchParams({ returnTo: here })}`;
}

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const passwordField = useRef<HTMLInputElement>(null);
  // How this server signs people in: a password, its identity provider, or both.
  const options = useLoad(() => consoleApi.signInOptions(), []);
  useTitle('Sign in');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await consoleApi.signIn(email, password));
    } catch (err) {
      setError(err);
      setBusy(false);
      // Back to the password, selected for typing again; the alert says what was wrong.
      passwordField.current?.focus();
      passwordField.current?.select();
    }
  };

  if (options.error && !options.data)
    return (
      <main className="signin">
        <ErrorNote error={options.error} title="The service cannot be reached" />
      </main>
    );
  if (!options.data)
    return (
      <main className="signin">
        <Loading />
      </main>
    );
  const { passwordSignIn, provider } = options.data;

  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to DocSlurp</h1>
        {provider ? (
          // A link, not a button: the browser leaves for the provider's page and comes back signed in.
          <a className="button primary provider-signin" href={providerHref(provider.signInUrl)}>
            Sign in with {provider.name}
          </a>
        ) : null}
        {provider && passwordSignIn ? <p className="or muted small">or with your password</p> : null}
        {passwordSignIn ? (
          <>
            <label>
              Email
              <input
                type="email"
                name="email"
                autoComplete="username"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </label>
            <label>
              Password
              <input
                ref={passwordField}
                type="password"
                name="password"
                autoComplete="current-password"
                required
                aria-describedby={error ? 'signin-error' : undefined}
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </label>
            {/* aria-disabled while it works: a disabled button would drop the focus it has. */}
            <button type="submit" className="primary" aria-disabled={busy}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
            <div id="signin-error">
              {error ? <ErrorNote error={error} title="Could not sign in" /> : null}
            </div>
            <p className="muted small">
              No account yet? Whoever runs the server creates one:{' '}
              <code>npm run docslurp -- users create --email you@example.com --password-stdin</code>
            </p>
          </>
        ) : (
          <p className="muted small">
            This server signs people in through {provider?.name ?? 'its identity provider'} only. No account
            yet? Ask whoever runs it.
          </p>
        )}
      </form>
    </main>
  );
}
