import type { Workspace } from '@service/sdk';
import { type FormEvent, useState } from 'react';
import { sdk } from '../api';
import { type Chosen, chosenOf, describeGrants, grantsOf, isManager, useUser } from '../lib/access';
import { useAction } from '../lib/hooks';
import { GrantsChooser, useDirectory } from './Access';
import { ActionNote } from './ActionNote';
import { ErrorNote } from './common';

/**
 * A workspace's Sharing panel: who may read it and who may also change it. Everyone sees the answer;
 * owners and admins, who alone may change it (PATCH /v1/workspaces/{id} with `access`), get the form.
 */
export function SharingPanel({ workspace, onChanged }: { workspace: Workspace; onChanged: () => void }) {
  const user = useUser();
  const { dir, error } = useDirectory();
  const access = workspace.access;
  const [restricted, setRestricted] = useState(access !== null);
  const [read, setRead] = useState<Chosen>(chosenOf(access?.read));
  const [edit, setEdit] = useState<Chosen>(chosenOf(access?.edit));
  const action = useAction(onChanged);
  const manager = isManager(user);

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (action.busy) return;
    void action.run(
      () =>
        sdk.updateWorkspace(workspace.id, {
          access: restricted ? { read: grantsOf(read), edit: grantsOf(edit) } : null,
        }),
      {
        done: restricted
          ? 'Saved: only the groups and people chosen (and owners and admins) see the workspace now.'
          : 'Saved: the whole account sees the workspace now.',
        failed: 'The sharing was not changed',
      },
    );
  };

  const readers = access ? describeGrants(access.read, dir) : [];
  const editors = access ? describeGrants(access.edit, dir) : [];
  return (
    <section aria-labelledby="sharing-title" data-testid="sharing">
      <h2 id="sharing-title">Sharing</h2>
      {access === null ? (
        <p data-testid="sharing-summary">Everyone in the account may read it; editors may change it.</p>
      ) : (
        <dl className="facts" data-testid="sharing-summary">
          <dt>May read</dt>
          <dd>{readers.length ? readers.join(', ') : 'only owners and admins'}</dd>
          <dt>May also change</dt>
          <dd>{editors.length ? editors.join(', ') : 'only owners and admins'}</dd>
        </dl>
      )}
      {manager ? (
        <form className="key-form" onSubmit={save} aria-labelledby="sharing-form-title">
          <h3 id="sharing-form-title">Who may see it</h3>
          {error ? <ErrorNote error={error} title="Could not list the account's people and groups" /> : null}
          <fieldset className="access-choice">
            <legend>Open to</legend>
            <label className="check">
              <input
                type="radio"
                name="sharing-scope"
                checked={!restricted}
                onChange={() => setRestricted(false)}
              />
              The whole account
            </label>
            <label className="check">
              <input
                type="radio"
                name="sharing-scope"
                checked={restricted}
                onChange={() => setRestricted(true)}
              />
              Only the groups and people chosen{' '}
              <span className="muted small">(owners and admins see it too)</span>
            </label>
          </fieldset>
          {restricted ? (
            <>
              <GrantsChooser legend="May read" name="read" dir={dir} value={read} onChange={setRead} />
              <GrantsChooser
                legend="May also change (editors among them upload and delete)"
                name="edit"
                dir={dir}
                value={edit}
                onChange={setEdit}
              />
            </>
          ) : null}
          <button type="submit" className="primary" aria-disabled={action.busy}>
            Save sharing
          </button>
          <ActionNote action={action} />
        </form>
      ) : null}
    </section>
  );
}
