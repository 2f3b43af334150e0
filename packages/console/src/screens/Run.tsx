import type { Run } from '@service/sdk';
import { useState } from 'react';
import { isNotFound, sdk } from '../api';
import { ErrorNote, Loading, ProgressBar, Status, When } from '../components/common';
import { useLoad } from '../lib/hooks';
import { documentHref } from '../lib/links';
import { paceText, stageFraction } from '../lib/progress';
import { Link } from '../router';

/** A run watched live: polled every second until it is done (every few seconds while paused). */
export function RunScreen({ id }: { id: string }) {
  const { data, error, reload } = useLoad(
    (signal) => sdk.getRunProgress(id, { signal }),
    [id],
    (p) => (p.done ? undefined : p.status === 'paused' ? 3000 : 1000),
  );
  const [action, setAction] = useState<string>();
  const [actionError, setActionError] = useState<unknown>();

  if (error && isNotFound(error)) {
    return (
      <section>
        <h1>Run not found</h1>
        <p>
          There is no run <code>{id}</code> in your account.
        </p>
      </section>
    );
  }
  if (error && !data) return <ErrorNote error={error} />;
  if (!data) return <Loading />;

  const act = async (name: string, fn: (runId: string) => Promise<Run>) => {
    setAction(name);
    setActionError(undefined);
    try {
      await fn(id);
      reload();
    } catch (err) {
      setActionError(err);
    } finally {
      setAction(undefined);
    }
  };
  const open = data.status === 'processing' || data.status === 'paused';
  const c = data.counts;
  return (
    <section>
      <p className="crumbs">
        <Link to={`/workspaces/${data.workspaceId}`}>Workspace {data.workspaceId}</Link> /
      </p>
      <h1>
        Run <code>{data.id}</code> <Status value={data.status} />
      </h1>
      <div className="run-summary">
        <ProgressBar value={data.progress} label="Run progress" />
        <p data-testid="run-progress">
          {Math.round(data.progress * 100)}% · {c.ready} ready, {c.queued} queued, {c.processing} processing
          {c.failed ? `, ${c.failed} failed` : ''}
          {c.needs_ocr ? `, ${c.needs_ocr} need OCR` : ''}
          {c.cancelled ? `, ${c.cancelled} cancelled` : ''} of {c.total}
        </p>
        {paceText(data) ? (
          <p className="muted small" data-testid="run-pace">
            {paceText(data)}
          </p>
        ) : null}
        <p className="muted small">
          Started <When iso={data.createdAt} />
          {data.finishedAt ? (
            <>
              {' '}
              · finished <When iso={data.finishedAt} />
            </>
          ) : null}
        </p>
        <div className="row">
          {data.status === 'processing' ? (
            <button type="button" disabled={!!action} onClick={() => act('pause', (r) => sdk.pauseRun(r))}>
              Pause
            </button>
          ) : null}
          {data.status === 'paused' ? (
            <button type="button" disabled={!!action} onClick={() => act('resume', (r) => sdk.resumeRun(r))}>
              Resume
            </button>
          ) : null}
          {open ? (
            <button
              type="button"
              className="danger-outline"
              disabled={!!action}
              onClick={() => act('cancel', (r) => sdk.cancelRun(r))}
            >
              Cancel run
            </button>
          ) : null}
          {data.status === 'completed' ? (
            <Link to={`/workspaces/${data.workspaceId}/search`} className="button primary">
              Search this workspace
            </Link>
          ) : null}
        </div>
        {actionError ? <ErrorNote error={actionError} title={`Could not ${action ?? 'do that'}`} /> : null}
      </div>

      {data.failures.length > 0 ? (
        <>
          <h2>Failures</h2>
          <ul className="plain" data-testid="run-failures">
            {data.failures.map((f) => (
              <li key={f.documentId}>
                <Link to={documentHref(f.documentId)}>{f.filename}</Link>: <code>{f.code}</code> {f.message}
              </li>
            ))}
          </ul>
        </>
      ) : null}

      <h2>Documents</h2>
      <table data-testid="run-documents">
        <thead>
          <tr>
            <th>Document</th>
            <th>State</th>
            <th>Stage</th>
            <th className="wide">Progress</th>
          </tr>
        </thead>
        <tbody>
          {data.documents.map((d) => (
            <tr key={d.id} data-document={d.filename} data-status={d.status}>
              <td>
                <Link to={documentHref(d.id)}>{d.filename}</Link>
                {d.error ? (
                  <div className="small bad-text">
                    <code>{d.error.code}</code> {d.error.message}
                  </div>
                ) : null}
              </td>
              <td>
                <Status value={d.status} />
              </td>
              <td>{d.stage}</td>
              <td>
                <ProgressBar value={stageFraction(d.status, d.stage)} label={`Progress of ${d.filename}`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
