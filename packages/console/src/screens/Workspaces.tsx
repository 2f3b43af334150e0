import type { WorkspaceSummary } from '@service/sdk';
import { type FormEvent, useState } from 'react';
import { sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { When } from '../components/common';
import { Listing } from '../components/Listing';
import { Uploader } from '../components/Uploader';
import { mayCreateWorkspaces, useUser } from '../lib/access';
import { useAction, useLoad, useTitle } from '../lib/hooks';
import { WORKSPACE_NAME_MAX, workspaceLabel } from '../lib/workspaces';
import { Link, navigate } from '../router';

/** The workspace's documents by state: these columns add up to its document count. */
const COUNTED = [
  ['ready', 'Ready'],
  ['queued', 'Waiting'],
  ['processing', 'Processing'],
  ['needs_ocr', 'Need OCR'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
] as const;

/** Its documents, as listed (deleted ones are not). */
const documentCount = (w: WorkspaceSummary) => w.counts.total - w.counts.deleted;

/** A workspace without documents yet: for a source to fill, or for uploads later. */
function NewEmptyWorkspace() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const create = (e: FormEvent) => {
    e.preventDefault();
    if (action.busy || !name.trim()) return;
    void action.run(
      async () => {
        const ws = await sdk.createWorkspace({
          name: name.trim(),
          ...(description.trim() ? { description: description.trim() } : {}),
        });
        navigate(`/workspaces/${ws.id}`);
      },
      { failed: 'The workspace was not created' },
    );
  };
  return (
    <form className="key-form" onSubmit={create} aria-labelledby="empty-workspace-title">
      <h3 id="empty-workspace-title">Or create an empty workspace</h3>
      <p className="muted small">
        For documents that come later, or from a source it stays in sync with (a website, a bucket, a folder).
      </p>
      <label>
        Name
        <input
          type="text"
          name="name"
          required
          maxLength={WORKSPACE_NAME_MAX}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <label>
        Description <span className="muted small">(optional)</span>
        <input
          type="text"
          name="description"
          maxLength={2000}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" aria-disabled={action.busy || !name.trim()}>
        Create workspace
      </button>
      <ActionNote action={action} />
    </form>
  );
}

export function WorkspacesScreen() {
  const list = useLoad((signal) => sdk.listWorkspaces({ signal }), []);
  const user = useUser();
  useTitle('Workspaces');
  return (
    <section>
      <h1>Workspaces</h1>
      {/* Readers search and read: creating a workspace is for editors and up. */}
      {mayCreateWorkspaces(user) ? (
        <>
          <h2>New workspace</h2>
          <p className="muted">
            Name it and upload documents to create a workspace; processing starts at once.
          </p>
          <Uploader onUploaded={(r) => navigate(`/runs/${r.run.id}`)} />
          <NewEmptyWorkspace />
        </>
      ) : null}
      <h2>Your workspaces</h2>
      <Listing
        state={list}
        items={(d) => d.workspaces}
        empty={mayCreateWorkspaces(user) ? 'None yet.' : 'None you may read yet.'}
        label="Your workspaces"
        testId="workspaces"
        columns={['Workspace', 'Documents', ...COUNTED.map(([, label]) => label), 'Created']}
        row={(w) => (
          <tr key={w.id} data-workspace={w.id}>
            <td>
              <Link to={`/workspaces/${w.id}`}>{workspaceLabel(w)}</Link>
            </td>
            <td data-count="total">{documentCount(w)}</td>
            {COUNTED.map(([state]) => (
              <td key={state} data-count={state}>
                {w.counts[state]}
              </td>
            ))}
            <td>
              <When iso={w.createdAt} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
