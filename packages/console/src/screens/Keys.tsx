import { type FormEvent, useRef, useState } from 'react';
import { consoleApi, SCOPES, type Scope, sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { When } from '../components/common';
import { Listing } from '../components/Listing';
import { NewSecret } from '../components/NewSecret';
import { useAction, useLoad, useTitle } from '../lib/hooks';

const SCOPE_HELP: Record<Scope, string> = {
  ingest: 'upload files and web pages, manage runs, delete documents',
  search: 'search and chat',
  artifacts: 'read workspaces, documents, extracted text and originals',
  admin: 'manage people, groups, who may see what, and read the audit log',
  'act-as': 'serve a request for one of your users (DocSlurp-On-Behalf-Of): it then sees what they see',
};

export function KeysScreen() {
  const keys = useLoad(() => consoleApi.listKeys(), []);
  // Who each user-bound key acts as, by e-mail (this screen is for owners and admins, who see people);
  // read again with the keys, so a key for someone added since shows their e-mail.
  const people = useLoad((signal) => sdk.users.list({ signal }), []);
  const action = useAction(() => {
    keys.reload();
    people.reload();
  });
  const [name, setName] = useState('');
  const [actsAs, setActsAs] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['search']);
  const [secret, setSecret] = useState<string>();
  const nameField = useRef<HTMLInputElement>(null);
  useTitle('API keys');

  const create = (e: FormEvent) => {
    e.preventDefault();
    if (action.busy || scopes.length === 0) return;
    void action.run(
      async () => {
        const created = await consoleApi.createKey(name.trim(), scopes, actsAs.trim() || undefined);
        setSecret(created.secret);
        setName('');
        setActsAs('');
      },
      { failed: 'The key was not created' },
    );
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
          onDone={() => {
            setSecret(undefined);
            // The secret and its buttons go: the keyboard continues at the form, for the next key.
            nameField.current?.focus();
          }}
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
            ref={nameField}
            type="text"
            name="name"
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <label>
          Acts as{' '}
          <span className="muted small">
            (a user's e-mail: the key then sees and does only what they may; empty: the whole account)
          </span>
          <input
            type="email"
            name="actsAs"
            maxLength={320}
            value={actsAs}
            onChange={(e) => setActsAs(e.target.value)}
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
        <button type="submit" className="primary" aria-disabled={scopes.length === 0 || action.busy}>
          Create key
        </button>
      </form>
      <ActionNote action={action} />

      <h2>Keys of your account</h2>
      <Listing
        state={keys}
        items={(d) => d.keys}
        empty="No keys yet."
        label="Keys of your account"
        testId="keys"
        columns={[
          'Name',
          'Key',
          'Scopes',
          'Acts as',
          'Created',
          'Last used',
          'State',
          { label: 'Actions', hidden: true },
        ]}
        row={(k) => (
          <tr key={k.id} data-key={k.id} className={k.revokedAt ? 'revoked' : undefined}>
            <td>{k.name ?? <span className="muted">–</span>}</td>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td>{k.scopes.join(', ')}</td>
            <td>
              {k.userId ? (
                (people.data?.find((u) => u.id === k.userId)?.email ?? k.userId)
              ) : (
                <span className="muted">the account</span>
              )}
            </td>
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
                  onConfirm={() =>
                    action.run(() => consoleApi.revokeKey(k.id), {
                      done: `The key ${k.name ?? k.prefix} is revoked: it stops working at once.`,
                      failed: 'Could not revoke the key',
                    })
                  }
                />
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
