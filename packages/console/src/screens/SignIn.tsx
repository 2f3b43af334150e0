import { type FormEvent, useRef, useState } from 'react';
import { consoleApi, type Session } from '../api';
import { ErrorNote } from '../components/common';
import { useTitle } from '../lib/hooks';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const passwordField = useRef<HTMLInputElement>(null);
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

  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to DocSlurp</h1>
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
        <div id="signin-error">{error ? <ErrorNote error={error} title="Could not sign in" /> : null}</div>
        <p className="muted small">
          No account yet? Whoever runs the server creates one:{' '}
          <code>npm run docslurp -- users create --email you@example.com --password-stdin</code>
        </p>
      </form>
    </main>
  );
}
