import type { DocumentStatus, RunProgress } from '@service/sdk';
import { useMemo, useRef, useState } from 'react';
import { isNotFound, sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { Details, ErrorNote, Loading, ProgressBar, RunBar, Status, When } from '../components/common';
import { DocumentName, documentLabel } from '../components/DocumentName';
import { Listing } from '../components/Listing';
import { WorkspaceCrumb } from '../components/WorkspaceCrumb';
import { mayEdit, useUser } from '../lib/access';
import { type Action, useAction, useLoad, useTitle } from '../lib/hooks';
import { documentHref } from '../lib/links';
import { paceText } from '../lib/progress';
import {
  announceRun,
  DOCUMENT_STATES,
  describeChanges,
  describeRun,
  documentProgress,
  inFlight,
  naturalCompare,
  nextPoll,
  pageOf,
  processedCount,
  runName,
  runSegments,
} from '../lib/runs';
import { sourceLabel } from '../lib/sources';
import { Link, navigate } from '../router';

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
  // A sync is named by its source.
  const sync = data?.kind === 'sync' ? data : undefined;
  const sources = useLoad(
    (signal) => (sync ? sdk.listSources(sync.workspaceId, { signal }) : Promise.resolve({ sources: [] })),
    [sync?.workspaceId],
  );
  const source = sources.data?.sources.find((s) => s.id === data?.sourceId);
  const name = data ? runName(data, source && sourceLabel(source)) : undefined;
  useTitle(data && name ? `${name} (${data.status})` : 'Run');

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
  if (!data || !name) return <Loading />;
  return <RunView data={data} name={name} reload={reload} />;
}

/** Processing the run's cancelled (or failed) documents again, in a new run whose page opens. */
function ReprocessButton({
  data,
  state,
  action,
}: {
  data: RunProgress;
  state: 'cancelled' | 'failed';
  action: Action;
}) {
  // The run's counts keep documents processed again in a later run: only those still here can go.
  const n = data.documents.filter((d) => d.status === state).length;
  if (n === 0 || !data.done) return null;
  const words =
    state === 'cancelled'
      ? `Process the ${n === 1 ? 'cancelled document' : `${n} cancelled documents`} again`
      : `Try the ${n === 1 ? 'failed document' : `${n} failed documents`} again`;
  return (
    <button
      type="button"
      aria-disabled={action.busy}
      onClick={() =>
        !action.busy &&
        action.run(
          async () => {
            const again = await sdk.reprocessRun(data.id, { statuses: [state] });
            navigate(`/runs/${again.run.id}`);
          },
          { failed: 'Could not process them again' },
        )
      }
    >
      {words}
    </button>
  );
}

function RunView({ data, name, reload }: { data: RunProgress; name: string; reload: () => void }) {
  const action = useAction(reload);
  // Pausing, cancelling and processing again are for those who may edit the run's workspace.
  const user = useUser();
  const workspace = useLoad((signal) => sdk.getWorkspace(data.workspaceId, { signal }), [data.workspaceId]);
  const editable = workspace.data ? mayEdit(user, workspace.data.access) : false;
  const [filter, setFilter] = useState<DocumentStatus | 'all'>('all');
  const [page, setPage] = useState(0);
  const table = useRef<HTMLHeadingElement>(null);

  const sorted = useMemo(
    () =>
      [...data.documents].sort(
        (a, b) => naturalCompare(documentLabel(a), documentLabel(b)) || a.id.localeCompare(b.id),
      ),
    [data.documents],
  );
  const failures = useMemo(
    () => [...data.failures].sort((a, b) => naturalCompare(a.filename, b.filename)),
    [data.failures],
  );

  const show = (state: DocumentStatus | 'all') => {
    setFilter(state);
    setPage(0);
  };

  const c = data.counts;
  const open = editable && (data.status === 'processing' || data.status === 'paused');
  const segments = runSegments(c);
  const sentence = describeRun(data.status, c);
  const shown = filter === 'all' ? sorted : sorted.filter((d) => d.status === filter);
  const p = pageOf(shown, page, PAGE_SIZE);
  // The table lists the documents still in the run; its chips count those, not the run's counts.
  const here = useMemo(() => {
    const n = new Map<DocumentStatus, number>();
    for (const d of data.documents) n.set(d.status, (n.get(d.status) ?? 0) + 1);
    return n;
  }, [data.documents]);
  const chips = DOCUMENT_STATES.filter((s) => (here.get(s.state) ?? 0) > 0 || s.state === filter);
  const paused = data.status === 'paused';

  return (
    <section>
      <WorkspaceCrumb id={data.workspaceId} />
      <h1>
        {name} <Status value={data.status} />
      </h1>
      <p className="muted small" data-testid="run-when">
        Started <When iso={data.createdAt} />
        {data.finishedAt ? (
          <>
            {' '}
            · finished <When iso={data.finishedAt} />
          </>
        ) : null}{' '}
        · run <code>{data.id}</code>
      </p>
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
        {data.error ? (
          <p className="bad-text" data-testid="run-error">
            {data.error.message}
          </p>
        ) : null}
        {data.changes ? <p data-testid="sync-changes">{describeChanges(data.changes)}</p> : null}
        {data.reprocessedBy.length > 0 ? (
          <ul className="plain" data-testid="run-reprocessed">
            {data.reprocessedBy.map((r) => (
              <li key={r.runId}>
                Processed again in <Link to={`/runs/${r.runId}`}>{r.runId}</Link> (
                {r.documents === 1 ? '1 of its documents' : `${r.documents} of its documents`})
              </li>
            ))}
          </ul>
        ) : null}
        {c.total === 0 && data.done && !data.error && !data.changes ? (
          <p className="muted">
            {data.kind === 'sync'
              ? 'This sync found nothing new or changed, or its documents were synced again since.'
              : 'Its documents were processed again in a later run.'}
          </p>
        ) : null}
        {paceText(data) ? (
          <p className="muted small" data-testid="run-pace">
            {paceText(data)}
          </p>
        ) : null}
        {/* Screen readers hear the run's progress in steps and its outcome, not every second's change. */}
        <p className="sr-only" role="status" data-testid="run-announcement">
          {announceRun(data.status, c)}
        </p>
        <div className="row">
          {open ? (
            // One button that changes its words: the keyboard's focus stays on it.
            <button
              type="button"
              aria-disabled={action.busy}
              onClick={() =>
                !action.busy &&
                action.run(() => (paused ? sdk.resumeRun(data.id) : sdk.pauseRun(data.id)), {
                  failed: paused ? 'Could not resume' : 'Could not pause',
                })
              }
            >
              {paused ? 'Resume run' : 'Pause run'}
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
              disabled={action.busy}
              onConfirm={() =>
                action.run(() => sdk.cancelRun(data.id), {
                  done: 'The run is cancelled: documents that had not started will not be processed.',
                  failed: 'Could not cancel',
                })
              }
            />
          ) : null}
          {editable ? (
            <>
              <ReprocessButton data={data} state="cancelled" action={action} />
              <ReprocessButton data={data} state="failed" action={action} />
            </>
          ) : null}
          {data.status === 'completed' ? (
            <Link to={`/workspaces/${data.workspaceId}/search`} className="button primary">
              Search this workspace
            </Link>
          ) : null}
        </div>
        <ActionNote action={action} />
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

      {data.documents.length > 0 ? (
        <>
          <h2 ref={table}>Documents</h2>
          <fieldset className="filters">
            <legend className="sr-only">Show documents by state</legend>
            <button type="button" aria-pressed={filter === 'all'} onClick={() => show('all')}>
              all ({data.documents.length})
            </button>
            {chips.map((s) => (
              <button
                key={s.state}
                type="button"
                aria-pressed={filter === s.state}
                data-state={s.state}
                onClick={() => show(s.state)}
              >
                {s.word} ({here.get(s.state) ?? 0})
              </button>
            ))}
          </fieldset>
          <Listing
            state={{ data: p.items, error: undefined }}
            items={(items) => items}
            empty={`No document is ${DOCUMENT_STATES.find((s) => s.state === filter)?.word} now.`}
            label="Documents of the run"
            testId="run-documents"
            columns={['Document', 'State', { label: 'Progress', className: 'wide' }]}
            row={(d) => {
              const progress = documentProgress(d.status, d.stage);
              return (
                <tr key={d.id} data-document={d.filename} data-status={d.status}>
                  <td className="name">
                    <Link to={documentHref(d.id)}>
                      <DocumentName filename={d.filename} sourceItem={d.sourceItem} />
                    </Link>
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
            }}
          >
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
          </Listing>
        </>
      ) : null}
    </section>
  );
}
