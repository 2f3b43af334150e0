import { consoleApi, sdk } from '../api';
import { Details, ErrorNote, Loading, ProgressBar, Status, When } from '../components/common';
import { Listing } from '../components/Listing';
import { maySeeRuns, useUser } from '../lib/access';
import { useLoad, useTitle } from '../lib/hooks';
import { runName } from '../lib/runs';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

const STATES = ['ready', 'queued', 'processing', 'needs_ocr', 'failed', 'cancelled'] as const;

export function OverviewScreen() {
  const user = useUser();
  // Both in parallel: the screen needs them together.
  const { data, error } = useLoad(
    (signal) => Promise.all([consoleApi.overview(), sdk.listWorkspaces({ signal })]),
    [],
    ([o]) => (o.runsProcessing > 0 ? 2000 : undefined),
  );
  useTitle('Overview');
  if (error && !data) return <ErrorNote error={error} />;
  if (!data) return <Loading />;
  const [overview, { workspaces }] = data;
  const docs = overview.documents;
  const names = new Map(workspaces.map((w) => [w.id, workspaceLabel(w)]));
  return (
    <section>
      <h1>Overview</h1>
      <div className="cards">
        <article className="card" aria-labelledby="docs-title">
          <h2 id="docs-title">Documents by state</h2>
          <p className="big">{docs.total - (docs.deleted ?? 0)}</p>
          <ul className="counts" data-testid="document-counts">
            {STATES.map((s) => (
              <li key={s}>
                <Status value={s} /> <strong>{docs[s] ?? 0}</strong>
              </li>
            ))}
          </ul>
        </article>
        <article className="card" aria-labelledby="wip-title">
          <h2 id="wip-title">Work in progress</h2>
          <p className="big">{overview.runsProcessing}</p>
          <p className="muted small">
            {overview.runsProcessing === 1 ? 'run' : 'runs'} processing · {docs.queued ?? 0} documents waiting
            in the queue
          </p>
          {overview.activeRuns.length === 0 ? (
            <p className="muted">Nothing is being processed.</p>
          ) : (
            <ul className="plain" data-testid="active-runs">
              {overview.activeRuns.map((r) => {
                const name = runName({ kind: r.kind, counts: { total: r.documents } }, r.sourceName);
                return (
                  <li key={r.id}>
                    {/* A reader may not open runs (they need the ingest scope): it reads their names. */}
                    {maySeeRuns(user) ? <Link to={`/runs/${r.id}`}>{name}</Link> : name}{' '}
                    <Status value={r.status} />{' '}
                    <span className="muted small">
                      in {names.get(r.workspaceId) ?? 'a workspace'} · <When iso={r.createdAt} />
                    </span>
                    <ProgressBar
                      value={r.documents === 0 ? 1 : r.finished / r.documents}
                      label={`Progress of ${name}`}
                    />
                    <span className="muted small">
                      {r.finished} of {r.documents} documents done
                    </span>
                  </li>
                );
              })}
            </ul>
          )}
        </article>
      </div>

      <h2>Recent failures</h2>
      <Listing
        state={{ data: overview.recentFailures, error: undefined }}
        items={(f) => f}
        empty="No document has failed."
        label="Recent failures"
        testId="recent-failures"
        columns={['Document', 'Reason', 'Workspace', 'When']}
        row={(f) => (
          <tr key={f.documentId}>
            <td>
              <Link to={`/documents/${f.documentId}`}>{f.filename}</Link>
            </td>
            <td>
              {f.message}
              <Details of={f.filename}>
                code <code>{f.code}</code>
              </Details>
            </td>
            <td>
              <Link to={`/workspaces/${f.workspaceId}`}>{names.get(f.workspaceId) ?? 'its workspace'}</Link>
            </td>
            <td>
              <When iso={f.failedAt} />
            </td>
          </tr>
        )}
      />

      <h2>Workspaces</h2>
      {workspaces.length === 0 ? (
        <p>
          No workspace yet.{' '}
          <Link to="/workspaces">Upload your first documents, or create an empty workspace</Link>.
        </p>
      ) : (
        <ul className="plain">
          {workspaces.slice(0, 5).map((w) => (
            <li key={w.id}>
              <Link to={`/workspaces/${w.id}`}>{workspaceLabel(w)}</Link>{' '}
              <span className="muted small">
                {w.counts.total - w.counts.deleted}{' '}
                {w.counts.total - w.counts.deleted === 1 ? 'document' : 'documents'} ·{' '}
                <When iso={w.createdAt} />
              </span>
            </li>
          ))}
          {workspaces.length > 5 ? (
            <li>
              <Link to="/workspaces">All {workspaces.length} workspaces</Link>
            </li>
          ) : null}
        </ul>
      )}
    </section>
  );
}
