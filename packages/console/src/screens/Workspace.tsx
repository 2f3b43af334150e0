import type { Document } from '@service/sdk';
import { useState } from 'react';
import { isNotFound, sdk } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { Details, ErrorNote, Hidden, Loading, Status, TableScroll, When } from '../components/common';
import { Uploader } from '../components/Uploader';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { useLoad, useTitle } from '../lib/hooks';
import { contentHref, documentHref } from '../lib/links';
import { formatBytes } from '../lib/progress';
import { naturalCompare } from '../lib/runs';
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

export function WorkspaceScreen({ id }: { id: string }) {
  const { data, error, reload } = useLoad(
    (signal) => Promise.all([sdk.getWorkspace(id, { signal }), sdk.listDocuments(id, { signal })]),
    [id],
    ([, { documents }]) => (documents.some(busy) ? 2000 : undefined),
  );
  const [actionError, setActionError] = useState<unknown>();
  const name = data?.[0].name;
  useTitle(`Workspace ${name ?? id}`);

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
      <WorkspaceHeader id={id} name={workspace.name} current="documents" />
      <p className="muted small">
        <code>{workspace.id}</code> · created <When iso={workspace.createdAt} />
      </p>

      <h2>Add documents</h2>
      <Uploader workspaceId={id} onUploaded={(r) => navigate(`/runs/${r.run.id}`)} />

      <h2>Runs</h2>
      <ul className="plain" data-testid="runs">
        {runsOf(documents).map((r) => (
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
    </section>
  );
}
