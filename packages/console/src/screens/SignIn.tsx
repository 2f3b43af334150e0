import { type FormEvent, useState } from 'react';
import { consoleApi, type Session } from '../api';
import { ErrorNote } from '../components/common';
import { useTitle } from '../lib/hooks';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useTitle('Sign in');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await consoleApi.signIn(email, password));
    } catch (err) {
      setError(err);
      setBusy(false);
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
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error ? <ErrorNote error={error} title="Could not sign in" /> : null}
        <p className="muted small">
          No account yet? Whoever runs the server creates one:{' '}
          <code>npm run docslurp -- users create --email you@example.com --password …</code>
        </p>
      </form>
    </main>
  );
}
