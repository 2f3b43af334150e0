import type { Group, Role, User } from '@service/sdk';
import { type FormEvent, useRef, useState } from 'react';
import { sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorNote, When } from '../components/common';
import { Listing } from '../components/Listing';
import { isManager, useUser } from '../lib/access';
import { type Action, useAction, useLoad, useTitle } from '../lib/hooks';

export const ROLES: { role: Role; help: string }[] = [
  { role: 'reader', help: 'searches, chats and reads what they may see' },
  { role: 'editor', help: 'also uploads, adds sources, deletes and reprocesses where they may edit' },
  { role: 'admin', help: 'also manages people, groups, who may see what, keys, webhooks' },
  { role: 'owner', help: 'everything, owners included' },
];

/** The roles the person may give: owners alone make owners (and change them). */
const rolesFor = (own: Role) => ROLES.filter((r) => r.role !== 'owner' || own === 'owner');

/** A person's role, changed in place: the select saves as soon as it changes, its note says so. */
function RoleSelect({ user, own, action }: { user: User; own: Role; action: Action }) {
  const offered = rolesFor(own);
  // An admin cannot change an owner: the role is shown, not offered.
  if (!offered.some((r) => r.role === user.role)) return <>{user.role}</>;
  return (
    <label className="inline">
      <span className="sr-only">Role of {user.email}</span>
      <select
        name="role"
        value={user.role}
        aria-disabled={action.busy}
        onChange={(e) => {
          const role = e.target.value as Role;
          void action.run(() => sdk.users.update(user.id, { role }), {
            done: `${user.email} is ${role === 'admin' || role === 'owner' ? 'an' : 'a'} ${role} now.`,
            failed: `Could not change the role of ${user.email}`,
          });
        }}
      >
        {offered.map((r) => (
          <option key={r.role} value={r.role}>
            {r.role}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Invite someone by e-mail: they sign in through the identity provider, or with the password given. */
function InviteForm({ groups, own, onAdded }: { groups: Group[]; own: Role; onAdded: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('reader');
  const [chosen, setChosen] = useState<string[]>([]);
  const [password, setPassword] = useState('');
  const action = useAction(onAdded);
  const emailField = useRef<HTMLInputElement>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (action.busy || !email.trim()) return;
    const address = email.trim();
    const added = await action.run(
      () =>
        sdk.users.create({
          email: address,
          role,
          ...(chosen.length ? { groups: chosen } : {}),
          ...(password ? { password } : {}),
        }),
      { done: `${address} is added as ${role}.`, failed: `${address} was not added` },
    );
    if (added) {
      setEmail('');
      setPassword('');
      setChosen([]);
    }
  };

  return (
    <form className="key-form" onSubmit={submit} aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <label>
        Email
        <input
          ref={emailField}
          type="email"
          name="email"
          required
          maxLength={320}
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </label>
      <label>
        Role
        <select name="role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {rolesFor(own).map((r) => (
            <option key={r.role} value={r.role}>
              {r.role}: {r.help}
            </option>
          ))}
        </select>
      </label>
      {groups.length > 0 ? (
        <fieldset>
          <legend>Groups</legend>
          {groups.map((g) => (
            <label key={g.id} className="check">
              <input
                type="checkbox"
                name="group"
                value={g.id}
                checked={chosen.includes(g.id)}
                onChange={() =>
                  setChosen((all) => (all.includes(g.id) ? all.filter((x) => x !== g.id) : [...all, g.id]))
                }
              />
              {g.name}
            </label>
          ))}
        </fieldset>
      ) : null}
      <label>
        Password{' '}
        <span className="muted small">
          (optional: without one, they sign in through your identity provider)
        </span>
        <input
          type="password"
          name="password"
          autoComplete="new-password"
          maxLength={1024}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" aria-disabled={action.busy || !email.trim()}>
        Invite
      </button>
      <ActionNote action={action} />
    </form>
  );
}

/** The account's people: their roles and groups; invite, change a role, remove. Owners and admins only. */
export function PeopleScreen() {
  const me = useUser();
  return isManager(me) ? <PeopleList /> : <NotForYou what="People" />;
}

function PeopleList() {
  const me = useUser();
  const state = useLoad(
    (signal) => Promise.all([sdk.users.list({ signal }), sdk.groups.list({ signal })]),
    [],
  );
  const action = useAction(state.reload);
  useTitle('People');
  const groups = state.data?.[1] ?? [];
  const groupName = new Map(groups.map((g) => [g.id, g.name]));

  return (
    <section>
      <h1>People</h1>
      <p className="muted">
        Everyone who signs in to this account, with their role. What they see also depends on the groups they
        are in: a workspace's Sharing panel and a document's page say who may read them.
      </p>
      <InviteForm groups={groups} own={me.role} onAdded={state.reload} />
      <h2>People of the account</h2>
      <ActionNote action={action} />
      <Listing
        state={{ data: state.data?.[0], error: state.error }}
        items={(users) => [...users].sort((a, b) => a.email.localeCompare(b.email))}
        empty="Nobody yet."
        label="People of the account"
        testId="people"
        stack
        columns={['Person', 'Role', 'Groups', 'Last sign-in', { label: 'Actions', hidden: true }]}
        row={(u) => (
          <tr key={u.id} data-user={u.email}>
            <td className="people-email">
              {u.email}
              {u.name ? <div className="muted small">{u.name}</div> : null}
              {u.id === me.id ? <div className="muted small">you</div> : null}
            </td>
            <td data-label="Role">
              {u.id === me.id ? u.role : <RoleSelect user={u} own={me.role} action={action} />}
            </td>
            <td data-label="Groups">
              {u.groups.length ? (
                u.groups.map((id) => groupName.get(id) ?? id).join(', ')
              ) : (
                <span className="muted">none</span>
              )}
            </td>
            <td data-label="Last sign-in">
              <When iso={u.lastSignInAt} />
            </td>
            <td className="actions">
              {u.id === me.id || (u.role === 'owner' && me.role !== 'owner') ? null : (
                <ConfirmButton
                  label="Remove"
                  confirmLabel="Remove with their keys"
                  target={u.email}
                  onConfirm={() =>
                    action.run(() => sdk.users.delete(u.id), {
                      done: `${u.email} is removed: their sessions, keys and webhooks ended with them.`,
                      failed: `Could not remove ${u.email}`,
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

/** What a reader or editor sees at an owner's or admin's screen (a bookmark, a shared link). */
export function NotForYou({ what }: { what: string }) {
  useTitle(what);
  return (
    <section>
      <h1>{what}</h1>
      <ErrorNote
        error={new Error('Only owners and admins see this screen. Ask one of them if you need it.')}
        title="Not for your role"
      />
    </section>
  );
}
