import type { Document, Workspace } from '@service/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { isNotFound, sdk } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { Details, ErrorNote, Hidden, Loading, Status, TableScroll, When } from '../components/common';
import { Uploader } from '../components/Uploader';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { useLoad, useTitle } from '../lib/hooks';
import { contentHref, documentHref } from '../lib/links';
import { formatBytes } from '../lib/progress';
import { naturalCompare } from '../lib/runs';
import { WORKSPACE_NAME_MAX, workspaceLabel } from '../lib/workspaces';
import { Link, navigate } from '../router';

const busy = (d: Document) => d.status === 'queued' || d.status === 'processing';

/** The runs of a workspace, as its documents name them: newest first, with their documents' states. */
function runsOf(documents: Document[]) {
  const runs = new Map<
    string,
    { id: string; createdAt: string; total: number; busy: number; failed: number; cancelled: number }
  >();
  for (const d of documents) {
    const r = runs.get(d.runId) ?? {
      id: d.runId,
      createdAt: d.createdAt,
      total: 0,
      busy: 0,
      failed: 0,
      cancelled: 0,
    };
    r.total++;
    if (busy(d)) r.busy++;
    if (d.status === 'failed') r.failed++;
    if (d.status === 'cancelled') r.cancelled++;
    if (d.createdAt < r.createdAt) r.createdAt = d.createdAt;
    runs.set(d.runId, r);
  }
  return [...runs.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Renames the workspace in place: the name as a field, saved or given up. */
function RenameForm({ workspace, onDone }: { workspace: Workspace; onDone: (renamed: boolean) => void }) {
  const [name, setName] = useState(workspace.name ?? '');
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  // The person just asked to rename: the field is where they go next (as after arming a confirmation).
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      await sdk.updateWorkspace(workspace.id, { name });
      onDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="rename" onSubmit={save}>
      <label>
        New name of {workspaceLabel(workspace)}
        <input
          type="text"
          name="name"
          value={name}
          required
          maxLength={WORKSPACE_NAME_MAX}
          ref={field}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={saving || !name.trim()}>
          Save name
        </button>
        <button type="button" className="link" onClick={() => onDone(false)}>
          Cancel renaming
        </button>
      </div>
      {error ? <ErrorNote error={error} title="Could not rename" /> : null}
    </form>
  );
}

/** What deleting a workspace takes with it, in words, for the confirmation. */
function deletionNote(documents: Document[], runsInProgress: number): string {
  const n = documents.length;
  const what = n === 1 ? '1 document' : `${n} documents`;
  const runs =
    runsInProgress === 0
      ? ''
      : ` ${runsInProgress === 1 ? 'Its run in progress stops' : `Its ${runsInProgress} runs in progress stop`}.`;
  return `Deletes ${what} with their original files, extracted text and search index.${runs} This cannot be undone.`;
}

export function WorkspaceScreen({ id }: { id: string }) {
  const { data, error, reload } = useLoad(
    (signal) => Promise.all([sdk.getWorkspace(id, { signal }), sdk.listDocuments(id, { signal })]),
    [id],
    ([, { documents }]) => (documents.some(busy) ? 2000 : undefined),
  );
  const [actionError, setActionError] = useState<unknown>();
  const [deleteError, setDeleteError] = useState<unknown>();
  const [renaming, setRenaming] = useState(false);
  useTitle(data ? workspaceLabel(data[0]) : `Workspace ${id}`);

  if (error && isNotFound(error)) {
    return (
      <section>
        <h1>Workspace not found</h1>
        <p>
          There is no workspace <code>{id}</code> in your account.{' '}
          <Link to="/workspaces">All workspaces</Link>
        </p>
      </section>
    );
  }
  if (error && !data) return <ErrorNote error={error} />;
  if (!data) return <Loading />;
  const [workspace, { documents }] = data;

  const removeWorkspace = async () => {
    setDeleteError(undefined);
    try {
      await sdk.deleteWorkspace(id);
      navigate('/workspaces');
    } catch (err) {
      setDeleteError(err);
    }
  };
  const label = workspaceLabel(workspace);
  const runs = runsOf(documents);

  const remove = async (d: Document) => {
    setActionError(undefined);
    try {
      await sdk.deleteDocument(d.id);
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <section>
      <WorkspaceHeader id={id} workspace={workspace} current="documents" />
      <p className="muted small">
        <code>{workspace.id}</code> · created <When iso={workspace.createdAt} />
        {renaming ? null : (
          <>
            {' '}
            ·{' '}
            <button type="button" className="link small" onClick={() => setRenaming(true)}>
              Rename<Hidden> {label}</Hidden>
            </button>
          </>
        )}
      </p>
      {renaming ? (
        <RenameForm
          workspace={workspace}
          onDone={(renamed) => {
            setRenaming(false);
            if (renamed) reload();
          }}
        />
      ) : null}

      <h2>Add documents</h2>
      <Uploader workspaceId={id} onUploaded={(r) => navigate(`/runs/${r.run.id}`)} />

      <h2>Runs</h2>
      <ul className="plain" data-testid="runs">
        {runs.map((r) => (
          <li key={r.id}>
            <Link to={`/runs/${r.id}`}>{r.id}</Link>{' '}
            <span className="muted small">
              {r.total} {r.total === 1 ? 'document' : 'documents'}
              {r.busy ? `, ${r.busy} in progress` : ''}
              {r.failed ? `, ${r.failed} failed` : ''}
              {r.cancelled ? `, ${r.cancelled} cancelled` : ''} · <When iso={r.createdAt} />
            </span>
          </li>
        ))}
      </ul>

      <h2>Documents</h2>
      {actionError ? <ErrorNote error={actionError} title="Could not delete" /> : null}
      {documents.length === 0 ? (
        <p className="muted">No documents.</p>
      ) : (
        <TableScroll label="Documents of the workspace">
          <table data-testid="documents">
            <thead>
              <tr>
                <th>Document</th>
                <th>State</th>
                <th>Size</th>
                <th>Pages</th>
                <th>Passages</th>
                <th>Added</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {[...documents]
                .sort((a, b) => naturalCompare(a.filename, b.filename))
                .map((d) => (
                  <tr key={d.id} data-document={d.filename}>
                    <td>
                      <Link to={documentHref(d.id, { mediaType: d.mediaType })}>{d.filename}</Link>
                      {d.error && d.status !== 'cancelled' ? (
                        <div className="small bad-text">
                          {d.error.message}
                          <Details of={d.filename}>
                            code <code>{d.error.code}</code>
                          </Details>
                        </div>
                      ) : null}
                    </td>
                    <td>
                      <Status value={d.status} />
                      {busy(d) ? <span className="muted small"> {d.stage}</span> : null}
                    </td>
                    <td>{d.sizeBytes === null ? '–' : formatBytes(d.sizeBytes)}</td>
                    <td>{d.pageCount ?? '–'}</td>
                    <td>{d.chunkCount ?? '–'}</td>
                    <td>
                      <When iso={d.createdAt} />
                    </td>
                    <td className="actions">
                      <a href={contentHref(d.id)} download={d.filename}>
                        Download<Hidden> {d.filename}</Hidden>
                      </a>
                      <ConfirmButton
                        label="Delete"
                        confirmLabel="Delete for good"
                        target={d.filename}
                        onConfirm={() => remove(d)}
                      />
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </TableScroll>
      )}

      <h2>Delete the workspace</h2>
      <p className="muted" data-testid="delete-note">
        {deletionNote(documents, runs.filter((r) => r.busy > 0).length)}
      </p>
      {deleteError ? <ErrorNote error={deleteError} title="Could not delete the workspace" /> : null}
      <ConfirmButton
        label="Delete workspace"
        confirmLabel={`Delete ${label} and its ${documents.length === 1 ? 'document' : `${documents.length} documents`}`}
        keepLabel="Keep it"
        target={label}
        onConfirm={removeWorkspace}
      />
    </section>
  );
}
