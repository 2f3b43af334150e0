import { consoleApi, type Overview, sdk } from '../api';
import { Details, ErrorNote, Loading, ProgressBar, Status, When } from '../components/common';
import { Listing } from '../components/Listing';
import { maySeeRuns, useUser } from '../lib/access';
import { useLoad, useTitle } from '../lib/hooks';
import { formatBytes } from '../lib/progress';
import { runName } from '../lib/runs';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

const STATES = ['ready', 'queued', 'processing', 'needs_ocr', 'failed', 'cancelled'] as const;

type Quotas = NonNullable<Overview['quotas']>;
type QuotaName = Exclude<keyof Quotas, 'resetsAt'>;

/** How a quota's amounts read: "3 of 4 documents", "12 KB of 1.0 GB". */
const counted = (one: string, many: string) => (used: number, limit?: number) =>
  limit === undefined
    ? `${used} ${used === 1 ? one : many}`
    : `${used} of ${limit} ${limit === 1 ? one : many}`;
const bytes = (used: number, limit?: number) =>
  limit === undefined ? formatBytes(used) : `${formatBytes(used)} of ${formatBytes(limit)}`;

const QUOTA_ROWS: {
  name: QuotaName;
  title: string;
  amount: (used: number, limit?: number) => string;
  daily?: boolean;
}[] = [
  { name: 'documents', title: 'Documents', amount: counted('document', 'documents') },
  { name: 'storedBytes', title: 'Stored originals', amount: bytes },
  { name: 'uploadsPerDay', title: 'Uploads today', amount: counted('file', 'files'), daily: true },
  {
    name: 'questionsPerDay',
    title: 'Questions today',
    amount: counted('question', 'questions'),
    daily: true,
  },
];

/** Use against each of the account's quotas: a meter with its words, or "no limit". */
function QuotaCard({ quotas }: { quotas: Quotas }) {
  return (
    <article className="card" aria-labelledby="quotas-title">
      <h2 id="quotas-title">Quotas</h2>
      <ul className="plain" data-testid="quotas">
        {QUOTA_ROWS.map(({ name, title, amount, daily }) => {
          const { limit, used } = quotas[name];
          const text = limit === null ? `${amount(used)} · no limit` : `${amount(used, limit)} used`;
          return (
            <li key={name} data-quota={name}>
              <strong>{title}</strong> <span className="small">{text}</span>
              {limit === null ? null : (
                // The browser's meter: green while low, amber from 80 %, red at the limit (a limit of 0 is full).
                <meter
                  className="quota-meter"
                  aria-label={`${title}: use of the quota`}
                  min={0}
                  max={Math.max(limit, 1)}
                  low={limit * 0.8}
                  high={Math.max(limit, 1) * 0.999}
                  optimum={0}
                  value={limit === 0 ? 1 : Math.min(used, limit)}
                >
                  {text}
                </meter>
              )}
              {daily && limit !== null && used >= limit ? (
                <span className="muted small">Starts again at midnight UTC.</span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </article>
  );
}

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
        {overview.quotas ? <QuotaCard quotas={overview.quotas} /> : null}
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
