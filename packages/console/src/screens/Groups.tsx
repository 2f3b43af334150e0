import type { Group, User } from '@service/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { Hidden } from '../components/common';
import { Listing } from '../components/Listing';
import { isManager, useUser } from '../lib/access';
import { type Action, useAction, useLoad, useTitle } from '../lib/hooks';
import { NotForYou } from './People';

/** One group's name, changed in place; Escape gives up. */
function RenameGroup({ group, onDone }: { group: Group; onDone: (renamed: boolean) => void }) {
  const [name, setName] = useState(group.name);
  const action = useAction();
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (action.busy || !name.trim()) return;
    if (await action.run(() => sdk.groups.rename(group.id, name.trim()), { failed: 'Could not rename' }))
      onDone(true);
  };
  return (
    <form
      className="rename"
      onSubmit={save}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone(false);
      }}
    >
      <label>
        New name of group {group.name}
        <input
          ref={field}
          type="text"
          name="name"
          required
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <div className="row">
        <button type="submit" className="primary" aria-disabled={action.busy || !name.trim()}>
          Save name
        </button>
        <button type="button" className="link" onClick={() => onDone(false)}>
          Cancel renaming
        </button>
      </div>
      <ActionNote action={action} />
    </form>
  );
}

/** A group's members, each with "Take out", and a choice of the others to add. */
function Members({ group, users, action }: { group: Group; users: User[]; action: Action }) {
  const [adding, setAdding] = useState('');
  const members = users.filter((u) => group.members.includes(u.id));
  const others = users.filter((u) => !group.members.includes(u.id));
  const add = (e: FormEvent) => {
    e.preventDefault();
    const user = others.find((u) => u.id === adding);
    if (action.busy || !user) return;
    void action.run(() => sdk.groups.addMember(group.id, user.id), {
      done: `${user.email} is in group ${group.name} now.`,
      failed: `Could not add ${user.email}`,
    });
    setAdding('');
  };
  return (
    <>
      {members.length === 0 ? (
        <p className="muted small">No members yet.</p>
      ) : (
        <ul className="plain" data-testid="members">
          {members.map((u) => (
            <li key={u.id} className="people-email">
              {u.email}{' '}
              <button
                type="button"
                className="link small"
                aria-disabled={action.busy}
                onClick={() =>
                  !action.busy &&
                  action.run(() => sdk.groups.removeMember(group.id, u.id), {
                    done: `${u.email} is out of group ${group.name}.`,
                    failed: `Could not take ${u.email} out`,
                  })
                }
              >
                take out<Hidden> of {group.name}</Hidden>
              </button>
            </li>
          ))}
        </ul>
      )}
      {others.length > 0 ? (
        <form className="row" onSubmit={add}>
          <label className="inline">
            <span className="sr-only">Person to add to {group.name}</span>
            <select name="member" value={adding} onChange={(e) => setAdding(e.target.value)}>
              <option value="">Choose someone…</option>
              {others.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.email}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" aria-disabled={action.busy || !adding}>
            Add<Hidden> to {group.name}</Hidden>
          </button>
        </form>
      ) : null}
    </>
  );
}

export function GroupsScreen() {
  const me = useUser();
  return isManager(me) ? <GroupList /> : <NotForYou what="Groups" />;
}

/** The account's groups: create, rename, delete, and who is in each. */
function GroupList() {
  const state = useLoad(
    (signal) => Promise.all([sdk.groups.list({ signal }), sdk.users.list({ signal })]),
    [],
  );
  const action = useAction(state.reload);
  const creating = useAction(state.reload);
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<string>();
  // After renaming (or giving up), the keyboard goes back to that group's Rename button.
  const renameButtons = useRef(new Map<string, HTMLButtonElement>());
  const renamed = useRef<string>(undefined);
  useEffect(() => {
    if (renaming || !renamed.current) return;
    renameButtons.current.get(renamed.current)?.focus();
    renamed.current = undefined;
  }, [renaming]);
  useTitle('Groups');
  const users = state.data?.[1] ?? [];

  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (creating.busy || !name.trim()) return;
    const n = name.trim();
    if (
      await creating.run(() => sdk.groups.create({ name: n }), {
        done: `Group ${n} is created.`,
        failed: 'The group was not created',
      })
    )
      setName('');
  };

  return (
    <section>
      <h1>Groups</h1>
      <p className="muted">
        Groups name who may see a workspace or a document, so that a change of team is one change here. Groups
        your identity provider sends are kept in step at every sign-in.
      </p>
      <form className="key-form" onSubmit={create} aria-labelledby="new-group-title">
        <h2 id="new-group-title">Create a group</h2>
        <label>
          Name
          <input
            type="text"
            name="name"
            required
            maxLength={200}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <button type="submit" className="primary" aria-disabled={creating.busy || !name.trim()}>
          Create group
        </button>
        <ActionNote action={creating} />
      </form>
      <h2>Groups of the account</h2>
      <ActionNote action={action} />
      <Listing
        state={{ data: state.data?.[0], error: state.error }}
        items={(groups) => [...groups].sort((a, b) => a.name.localeCompare(b.name))}
        empty="No groups yet."
        label="Groups of the account"
        testId="groups"
        stack
        columns={['Group', 'Members', { label: 'Actions', hidden: true }]}
        row={(g) => (
          <tr key={g.id} data-group={g.name}>
            <td>
              {renaming === g.id ? (
                <RenameGroup
                  group={g}
                  onDone={(changed) => {
                    renamed.current = g.id;
                    setRenaming(undefined);
                    if (changed) state.reload();
                  }}
                />
              ) : (
                <strong>{g.name}</strong>
              )}
            </td>
            <td data-label="Members">
              <Members group={g} users={users} action={action} />
            </td>
            <td className="actions">
              {renaming === g.id ? null : (
                <button
                  ref={(b) => {
                    if (b) renameButtons.current.set(g.id, b);
                    else renameButtons.current.delete(g.id);
                  }}
                  type="button"
                  onClick={() => setRenaming(g.id)}
                >
                  Rename<Hidden> group {g.name}</Hidden>
                </button>
              )}{' '}
              <ConfirmButton
                label="Delete"
                confirmLabel="Delete the group"
                target={`group ${g.name}`}
                onConfirm={() =>
                  action.run(() => sdk.groups.delete(g.id), {
                    done: `Group ${g.name} is deleted: it left every access list.`,
                    failed: 'Could not delete the group',
                  })
                }
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
