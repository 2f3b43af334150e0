import { type FormEvent, useState } from 'react';
import { consoleApi, SCOPES, type Scope } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorNote, Loading, TableScroll, When } from '../components/common';
import { NewSecret } from '../components/NewSecret';
import { useLoad, useTitle } from '../lib/hooks';

const SCOPE_HELP: Record<Scope, string> = {
  ingest: 'upload files and web pages, manage runs, delete documents',
  search: 'search and chat',
  artifacts: 'read workspaces, documents, extracted text and originals',
};

export function KeysScreen() {
  const { data, error, reload } = useLoad(() => consoleApi.listKeys(), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['search']);
  const [secret, setSecret] = useState<string>();
  const [actionError, setActionError] = useState<unknown>();
  useTitle('API keys');

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setActionError(undefined);
    try {
      const created = await consoleApi.createKey(name.trim(), scopes);
      setSecret(created.secret);
      setName('');
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  const revoke = async (id: string) => {
    setActionError(undefined);
    try {
      await consoleApi.revokeKey(id);
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  const toggle = (s: Scope) =>
    setScopes((all) =>
      all.includes(s) ? all.filter((x) => x !== s) : SCOPES.filter((x) => x === s || all.includes(x)),
    );

  return (
    <section>
      <h1>API keys</h1>
      <p className="muted">
        Keys let your servers and scripts call the API. The console itself never uses one: it works with your
        sign-in session.
      </p>
      {secret ? (
        <NewSecret
          secret={secret}
          noun="key"
          label="New API key"
          testId="new-key"
          onDone={() => setSecret(undefined)}
        >
          <strong>Your new API key.</strong> Copy it now: it is shown only this once, and DocSlurp keeps only
          a hash of it. Use it from servers and scripts (<code>SERVICE_API_KEY</code>), never in a web page.
        </NewSecret>
      ) : null}
      <form className="key-form" onSubmit={create} aria-labelledby="new-key-title">
        <h2 id="new-key-title">Create a key</h2>
        <label>
          Name <span className="muted small">(what it is for)</span>
          <input
            type="text"
            name="name"
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s} className="check">
              <input
                type="checkbox"
                name="scope"
                value={s}
                checked={scopes.includes(s)}
                onChange={() => toggle(s)}
              />
              <code>{s}</code> <span className="muted small">{SCOPE_HELP[s]}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary" disabled={scopes.length === 0}>
          Create key
        </button>
      </form>
      {actionError ? <ErrorNote error={actionError} /> : null}

      <h2>Keys of your account</h2>
      {error ? <ErrorNote error={error} /> : null}
      {!data && !error ? <Loading /> : null}
      {data && data.keys.length === 0 ? <p className="muted">No keys yet.</p> : null}
      {data && data.keys.length > 0 ? (
        <TableScroll label="Keys of your account">
          <table data-testid="keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Scopes</th>
                <th>Created</th>
                <th>Last used</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {data.keys.map((k) => (
                <tr key={k.id} data-key={k.id} className={k.revokedAt ? 'revoked' : undefined}>
                  <td>{k.name ?? <span className="muted">–</span>}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>
                    <When iso={k.createdAt} />
                  </td>
                  <td>
                    <When iso={k.lastUsedAt} />
                  </td>
                  <td>
                    {k.revokedAt ? (
                      <span className="status status-muted">revoked</span>
                    ) : (
                      <span className="status status-ok">active</span>
                    )}
                  </td>
                  <td className="actions">
                    {k.revokedAt ? null : (
                      <ConfirmButton
                        label="Revoke"
                        confirmLabel="Revoke now"
                        target={`key ${k.name ?? k.prefix}`}
                        onConfirm={() => revoke(k.id)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </section>
  );
}
