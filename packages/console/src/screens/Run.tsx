import type { DocumentStatus, Run, RunProgress } from '@service/sdk';
import { useMemo, useRef, useState } from 'react';
import { isNotFound, sdk } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import {
  Details,
  ErrorNote,
  Loading,
  ProgressBar,
  RunBar,
  Status,
  TableScroll,
  When,
} from '../components/common';
import { WorkspaceCrumb } from '../components/WorkspaceCrumb';
import { useLoad, useTitle } from '../lib/hooks';
import { documentHref } from '../lib/links';
import { paceText } from '../lib/progress';
import {
  announceRun,
  DOCUMENT_STATES,
  describeRun,
  documentProgress,
  inFlight,
  naturalCompare,
  nextPoll,
  pageOf,
  processedCount,
  runSegments,
} from '../lib/runs';
import { Link } from '../router';

/** Rows of the documents table at a time: a run of hundreds of files is read page by page. */
const PAGE_SIZE = 50;
/** Failures listed above the table; the rest are one click away in the table, filtered. */
const FAILURES_SHOWN = 5;

const TONE: Partial<Record<DocumentStatus, string>> = {
  ready: 'ok',
  needs_ocr: 'warn',
  failed: 'bad',
  processing: 'busy',
  cancelled: 'cancelled',
};

/** A run watched live: polled every second until it is done (every few seconds while paused). */
export function RunScreen({ id }: { id: string }) {
  // Whether the previous answer was settled (terminal, nothing in flight): see nextPoll.
  const settled = useRef(false);
  const { data, error, reload } = useLoad(
    (signal) => sdk.getRunProgress(id, { signal }),
    [id],
    (p) => {
      const after = nextPoll(p, settled.current);
      settled.current = p.done && inFlight(p.counts) === 0;
      return after;
    },
  );
  useTitle(data ? `Run ${id} (${data.status})` : `Run ${id}`);

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
  return <RunView data={data} reload={reload} />;
}

function RunView({ data, reload }: { data: RunProgress; reload: () => void }) {
  const [action, setAction] = useState<string>();
  const [actionError, setActionError] = useState<unknown>();
  const [filter, setFilter] = useState<DocumentStatus | 'all'>('all');
  const [page, setPage] = useState(0);
  const table = useRef<HTMLHeadingElement>(null);

  const sorted = useMemo(
    () =>
      [...data.documents].sort((a, b) => naturalCompare(a.filename, b.filename) || a.id.localeCompare(b.id)),
    [data.documents],
  );
  const failures = useMemo(
    () => [...data.failures].sort((a, b) => naturalCompare(a.filename, b.filename)),
    [data.failures],
  );

  const act = async (name: string, fn: (runId: string) => Promise<Run>) => {
    setAction(name);
    setActionError(undefined);
    try {
      await fn(data.id);
      reload();
    } catch (err) {
      setActionError(err);
    } finally {
      setAction(undefined);
    }
  };
  const show = (state: DocumentStatus | 'all') => {
    setFilter(state);
    setPage(0);
  };

  const c = data.counts;
  const open = data.status === 'processing' || data.status === 'paused';
  const segments = runSegments(c);
  const sentence = describeRun(data.status, c);
  const shown = filter === 'all' ? sorted : sorted.filter((d) => d.status === filter);
  const p = pageOf(shown, page, PAGE_SIZE);
  const chips = DOCUMENT_STATES.filter((s) => c[s.state] > 0 || s.state === filter);

  return (
    <section>
      <WorkspaceCrumb id={data.workspaceId} />
      <h1>
        Run <code>{data.id}</code> <Status value={data.status} />
      </h1>
      <div className="run-summary">
        <RunBar
          segments={segments}
          processed={c.total === 0 ? 0 : processedCount(c) / c.total}
          label="Run progress"
          valueText={sentence}
        />
        <ul className="legend" data-testid="run-counts">
          {segments.map((s) => (
            <li key={s.state} data-state={s.state}>
              {/* Queued documents are the bar's empty track, and look like it here. */}
              <span
                className={s.state === 'queued' ? 'swatch track' : `swatch tone-${s.tone}`}
                aria-hidden="true"
              />{' '}
              {s.count} {s.word}
            </li>
          ))}
        </ul>
        <p data-testid="run-progress">{sentence}</p>
        {paceText(data) ? (
          <p className="muted small" data-testid="run-pace">
            {paceText(data)}
          </p>
        ) : null}
        {/* Screen readers hear the run's progress in steps and its outcome, not every second's change. */}
        <p className="sr-only" role="status" data-testid="run-announcement">
          {announceRun(data.status, c)}
        </p>
        <p className="muted small">
          Started <When iso={data.createdAt} />
          {data.finishedAt ? (
            <>
              {' '}
              · finished <When iso={data.finishedAt} />
            </>
          ) : null}
        </p>
        {open || data.status === 'completed' ? (
          <div className="row">
            {data.status === 'processing' ? (
              <button type="button" disabled={!!action} onClick={() => act('pause', (r) => sdk.pauseRun(r))}>
                Pause run
              </button>
            ) : null}
            {data.status === 'paused' ? (
              <button
                type="button"
                disabled={!!action}
                onClick={() => act('resume', (r) => sdk.resumeRun(r))}
              >
                Resume run
              </button>
            ) : null}
            {open ? (
              <ConfirmButton
                label="Cancel run"
                confirmLabel={
                  c.queued > 0
                    ? `Yes, cancel: ${c.queued} waiting ${c.queued === 1 ? 'document' : 'documents'} will not be processed`
                    : 'Yes, cancel the run'
                }
                keepLabel="Keep the run"
                disabled={!!action}
                onConfirm={() => act('cancel', (r) => sdk.cancelRun(r))}
              />
            ) : null}
            {data.status === 'completed' ? (
              <Link to={`/workspaces/${data.workspaceId}/search`} className="button primary">
                Search this workspace
              </Link>
            ) : null}
          </div>
        ) : null}
        {actionError ? <ErrorNote error={actionError} title={`Could not ${action ?? 'do that'}`} /> : null}
      </div>

      {failures.length > 0 ? (
        <>
          <h2>Failures</h2>
          <ul className="plain" data-testid="run-failures">
            {failures.slice(0, FAILURES_SHOWN).map((f) => (
              <li key={f.documentId}>
                <Link to={documentHref(f.documentId)}>{f.filename}</Link>: {f.message}
                <Details of={f.filename}>
                  code <code>{f.code}</code>
                </Details>
              </li>
            ))}
          </ul>
          {failures.length > FAILURES_SHOWN ? (
            <button
              type="button"
              className="link"
              onClick={() => {
                show('failed');
                table.current?.scrollIntoView();
              }}
            >
              Show all {failures.length} failed documents
            </button>
          ) : null}
        </>
      ) : null}

      <h2 ref={table}>Documents</h2>
      <fieldset className="filters">
        <legend className="sr-only">Show documents by state</legend>
        <button type="button" aria-pressed={filter === 'all'} onClick={() => show('all')}>
          all ({c.total})
        </button>
        {chips.map((s) => (
          <button
            key={s.state}
            type="button"
            aria-pressed={filter === s.state}
            data-state={s.state}
            onClick={() => show(s.state)}
          >
            {s.word} ({c[s.state]})
          </button>
        ))}
      </fieldset>
      {shown.length === 0 ? (
        <p className="muted">No document is {DOCUMENT_STATES.find((s) => s.state === filter)?.word} now.</p>
      ) : (
        <TableScroll label="Documents of the run">
          <table data-testid="run-documents">
            <thead>
              <tr>
                <th>Document</th>
                <th>State</th>
                <th className="wide">Progress</th>
              </tr>
            </thead>
            <tbody>
              {p.items.map((d) => {
                const progress = documentProgress(d.status, d.stage);
                return (
                  <tr key={d.id} data-document={d.filename} data-status={d.status}>
                    <td className="name">
                      <Link to={documentHref(d.id)}>{d.filename}</Link>
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
                    </td>
                    <td>
                      <ProgressBar
                        value={progress.value}
                        tone={TONE[d.status] ?? 'busy'}
                        label={`Progress of ${d.filename}`}
                        valueText={progress.caption}
                      />
                      <span className="small muted caption">{progress.caption}</span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      {p.pages > 1 ? (
        <nav className="pager" aria-label="Pages of documents">
          <button type="button" disabled={p.page === 0} onClick={() => setPage(p.page - 1)}>
            Previous page
          </button>
          <span data-testid="page-info">
            Documents {p.page * PAGE_SIZE + 1}–{p.page * PAGE_SIZE + p.items.length} of {shown.length}
          </span>
          <button type="button" disabled={p.page >= p.pages - 1} onClick={() => setPage(p.page + 1)}>
            Next page
          </button>
        </nav>
      ) : null}
    </section>
  );
}
