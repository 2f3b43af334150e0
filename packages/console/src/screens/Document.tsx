import { ConflictError, type Document } from '@service/sdk';
import { lazy, type ReactNode, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { isNotFound, sdk } from '../api';
import { useDirectory } from '../components/Access';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { Details, ErrorNote, Loading, ScrollRegion, Status, When } from '../components/common';
import { documentLabel } from '../components/DocumentName';
import { AccessFact, AccessForm } from '../components/DocumentSharing';
import { useMarkdown } from '../components/Markdown';
import { WorkspaceCrumb } from '../components/WorkspaceCrumb';
import { mayEdit, maySeeRuns, useUser } from '../lib/access';
import { useAction, useLoad, useTitle } from '../lib/hooks';
import { contentHref, isPdf } from '../lib/links';
import { markSplitter, withMarkChars } from '../lib/marks';
import { formatBytes } from '../lib/progress';
import { runName } from '../lib/runs';
import { revealWithin, scrollWithin } from '../lib/scroll';
import { sourceLabel } from '../lib/sources';
import { pageAt, passageWordsOnPage, segmentText } from '../lib/text';
import { Link, navigate, useLocation } from '../router';

// pdf.js is most of the console's weight: it is fetched only when a PDF is opened.
const loadPdfView = () => import('../pdf/PdfView');
const PdfView = lazy(loadPdfView);

const busy = (d: Document) => d.status === 'queued' || d.status === 'processing';

/**
 * Longer texts are shown as they are, unformatted: rendering Markdown costs about 2 s a million
 * characters in the browser (measured: 2.4 M characters took 4.2 s against 0.7 s unformatted).
 */
const MARKDOWN_MAX_CHARS = 500_000;

/**
 * The extracted text, page by page, with the cited characters marked and scrolled into view. It is
 * Markdown (headings, lists, tables, code) and shown rendered, except plain text files, whose text
 * is kept as it was written.
 */
function TextView({
  text,
  markdown,
  mark,
  page,
  reveal,
}: {
  text: string;
  markdown: boolean;
  mark: { start: number; end: number } | undefined;
  page: number | undefined;
  /** Each change asks to bring the marked passage into view again. */
  reveal: number;
}) {
  const root = useRef<HTMLElement>(null);
  const renderer = useMarkdown();
  const pages = useMemo(() => segmentText(text, mark), [text, mark]);
  const waiting = markdown && !renderer;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new `reveal` asks for the same scroll again.
  useEffect(() => {
    const box = root.current;
    // Runs again whenever the marked passage is rendered anew (new text or new offsets).
    if (!box || pages.length === 0 || waiting) return;
    const marked = box.querySelector('mark');
    const pageStart = page ? box.querySelector(`[data-page="${page}"]`) : null;
    if (marked) revealWithin(box, marked);
    else if (pageStart) scrollWithin(box, pageStart, 'start');
  }, [pages, page, waiting, reveal]);
  if (waiting) return <Loading />;
  return (
    <ScrollRegion
      ref={root}
      className={markdown ? 'text-view md' : 'text-view'}
      data-testid="text-view"
      label="Extracted text"
    >
      {pages.map((p) => {
        let body: ReactNode;
        if (markdown && renderer) {
          // The page's own text with the mark characters where the cited range starts and ends in it.
          const source = p.parts.map((part) => part.text).join('');
          const markedAt = p.parts.findIndex((part) => part.marked);
          const before = p.parts.slice(0, Math.max(0, markedAt)).reduce((n, part) => n + part.text.length, 0);
          const withMark =
            markedAt < 0 ? source : withMarkChars(source, before, before + p.parts[markedAt]!.text.length);
          const split = markSplitter();
          // Under the screen's h2 ("Extracted text") and, on paged text, the page's h3.
          body = renderer.renderMarkdown(withMark, {
            headingLevel: p.page !== null ? 4 : 3,
            text: (s) =>
              split(s).map((part, i) =>
                // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one run never reorder.
                part.marked ? <mark key={i}>{part.text}</mark> : part.text,
              ),
          });
        } else {
          body = (
            <pre>
              {p.parts.map((part) => (part.marked ? <mark key="mark">{part.text}</mark> : part.text))}
            </pre>
          );
        }
        return (
          <div key={p.start} data-page={p.page ?? undefined}>
            {p.page !== null ? <h3 className="page-marker">Page {p.page}</h3> : null}
            {body}
          </div>
        );
      })}
    </ScrollRegion>
  );
}

export function DocumentScreen({ id }: { id: string }) {
  const { params } = useLocation();
  const start = params.get('start');
  const end = params.get('end');
  const mark = useMemo(
    () => (start !== null && end !== null ? { start: Number(start), end: Number(end) } : undefined),
    [start, end],
  );
  const requestedPage = Number(params.get('page')) || undefined;
  const pdfHinted = params.get('view') === 'pdf';

  // Record, text and (for a PDF) the original bytes and the renderer all load at the same time.
  const { data, error, reload } = useLoad(
    (signal) =>
      Promise.all([
        sdk.getDocument(id, { signal }),
        sdk.getDocumentText(id, { signal }).catch((err: unknown) => {
          if (err instanceof ConflictError) return null; // not parsed yet
          throw err;
        }),
      ]),
    [id],
    ([d]) => (busy(d) ? 2000 : undefined),
  );
  const doc = data?.[0];
  const wantsPdf = pdfHinted || isPdf(doc?.mediaType);
  const bytes = useMemo(() => {
    if (!wantsPdf) return undefined;
    const p = sdk.getDocumentContent(id).then((b) => b.arrayBuffer());
    // The viewer reports a failure; the text view, if shown instead, does not need the bytes.
    p.catch(() => {});
    return p;
  }, [id, wantsPdf]);
  useEffect(() => {
    if (wantsPdf) void loadPdfView();
  }, [wantsPdf]);
  const [tab, setTab] = useState<'original' | 'text'>();
  // Pressing the cited passage's line asks the view to bring its highlight into view again.
  const [reveal, setReveal] = useState(0);
  const action = useAction(reload);
  // Its run, named by what it was (and a sync by its source): after the record, beside the text.
  const user = useUser();
  const origin = useLoad(
    (signal) =>
      doc
        ? Promise.all([
            // Runs need the ingest scope: a reader sees the document without its run.
            maySeeRuns(user) ? sdk.getRun(doc.runId, { signal }) : Promise.resolve(undefined),
            doc.source ? sdk.listSources(doc.workspaceId, { signal }) : Promise.resolve({ sources: [] }),
          ])
        : Promise.resolve(undefined),
    [doc?.runId, doc?.source],
  );
  // Whether the person may change it: its workspace's access lists say.
  const workspace = useLoad(
    (signal) => (doc ? sdk.getWorkspace(doc.workspaceId, { signal }) : Promise.resolve(undefined)),
    [doc?.workspaceId],
  );
  const { dir } = useDirectory();
  const [changingAccess, setChangingAccess] = useState(false);
  useTitle(doc ? documentLabel(doc) : 'Document');

  if (error && isNotFound(error)) {
    return (
      <section>
        <h1>Document not found</h1>
        <p>
          There is no document <code>{id}</code> in your account (or it was deleted).
        </p>
      </section>
    );
  }
  if (error && !data) return <ErrorNote error={error} />;
  if (!data || !doc) return <Loading />;
  const text = data[1];
  const view = tab ?? (wantsPdf && isPdf(doc.mediaType) ? 'original' : 'text');
  const page = requestedPage ?? (text && mark ? (pageAt(text, mark.start) ?? undefined) : undefined);
  const highlights = new Map<number, string[]>();
  if (text && mark && page) {
    const last = pageAt(text, Math.max(mark.start, mark.end - 1)) ?? page;
    for (let p = page; p <= last; p++) highlights.set(p, passageWordsOnPage(text, mark.start, mark.end, p));
  }

  const markdown = doc.mediaType !== 'text/plain';
  const tooLong = (text?.length ?? 0) > MARKDOWN_MAX_CHARS;

  const [run, { sources }] = origin.data ?? [undefined, { sources: [] }];
  // Processing again and deleting are for those who may edit its workspace; until it is known, no buttons.
  const editable = workspace.data ? mayEdit(user, workspace.data.access) : false;
  const source = sources.find((x) => x.id === doc.source);
  const reprocessable = doc.status === 'cancelled' || doc.status === 'failed';

  return (
    <section>
      <WorkspaceCrumb id={doc.workspaceId} />
      <h1>
        {doc.filename} <Status value={doc.status} />
      </h1>
      <dl className="facts">
        <dt>Stage</dt>
        <dd>{doc.stage}</dd>
        <dt>Format</dt>
        <dd>{doc.mediaType ?? 'unknown'}</dd>
        <dt>Size</dt>
        <dd>{doc.sizeBytes === null ? '–' : formatBytes(doc.sizeBytes)}</dd>
        <dt>Pages</dt>
        <dd>{doc.pageCount ?? '–'}</dd>
        <dt>Passages</dt>
        <dd>{doc.chunkCount ?? '–'}</dd>
        <dt>Added</dt>
        <dd>
          <When iso={doc.createdAt} />
        </dd>
        {maySeeRuns(user) ? (
          <>
            <dt>Run</dt>
            <dd>
              <Link to={`/runs/${doc.runId}`}>
                {run ? runName(run, source && sourceLabel(source)) : 'its run'}
              </Link>
            </dd>
          </>
        ) : null}
        {doc.sourceItem ? (
          <>
            <dt>Source</dt>
            <dd>
              <Link to={`/workspaces/${doc.workspaceId}/sources`}>
                {source ? sourceLabel(source) : 'its source'}
              </Link>
              : <code>{doc.sourceItem}</code>
              {doc.version > 1 ? ` (version ${doc.version})` : ''}
            </dd>
          </>
        ) : null}
        <AccessFact
          doc={doc}
          dir={dir}
          editable={editable}
          open={changingAccess}
          onOpen={() => {
            action.clear();
            setChangingAccess(true);
          }}
        />
      </dl>
      {editable && changingAccess ? (
        <AccessForm doc={doc} dir={dir} action={action} onClose={() => setChangingAccess(false)} />
      ) : null}
      {doc.error ? (
        <div className={doc.status === 'cancelled' ? 'note' : 'error'}>
          <strong>{doc.status === 'cancelled' ? 'Not processed' : 'Failed'}:</strong> {doc.error.message}
          <Details>
            code <code>{doc.error.code}</code>
          </Details>
        </div>
      ) : null}
      <div className="row">
        <a className="button" href={contentHref(id)} download={doc.filename}>
          Download original
        </a>
        {editable && reprocessable ? (
          <button
            type="button"
            className="primary"
            aria-disabled={action.busy}
            onClick={() =>
              !action.busy &&
              action.run(() => sdk.reprocessDocument(id), {
                done: 'It is queued to be processed again, in a new run.',
                failed: 'Could not process it again',
              })
            }
          >
            Process again
          </button>
        ) : null}
        {editable && doc.status !== 'deleted' ? (
          <ConfirmButton
            label="Delete"
            confirmLabel="Delete for good"
            target={doc.filename}
            onConfirm={() =>
              action.run(
                async () => {
                  await sdk.deleteDocument(id);
                  navigate(`/workspaces/${doc.workspaceId}`);
                },
                { failed: 'Could not delete' },
              )
            }
          />
        ) : null}
      </div>
      <ActionNote action={action} />

      {/* One line, not the passage again: the passage is highlighted where it is, in the view below. */}
      {mark && text ? (
        <p className="cited-line" data-testid="cited-passage">
          <button type="button" className="link" onClick={() => setReveal((n) => n + 1)}>
            Go to the cited passage{page ? ` on page ${page}` : ''}
          </button>
        </p>
      ) : null}

      <h2 className="sr-only">{view === 'original' ? 'Original PDF' : 'Extracted text'}</h2>
      <nav className="tabs" aria-label="View">
        {isPdf(doc.mediaType) ? (
          <button
            type="button"
            className={view === 'original' ? 'tab current' : 'tab'}
            aria-pressed={view === 'original'}
            onClick={() => setTab('original')}
          >
            Original PDF
          </button>
        ) : null}
        <button
          type="button"
          className={view === 'text' ? 'tab current' : 'tab'}
          aria-pressed={view === 'text'}
          onClick={() => setTab('text')}
        >
          Extracted text
        </button>
      </nav>
      {view === 'original' && bytes ? (
        <Suspense fallback={<Loading />}>
          <PdfView bytes={bytes} page={page} highlights={highlights} reveal={reveal} />
        </Suspense>
      ) : null}
      {view === 'text' ? (
        text === null ? (
          <p className="muted">
            The text is not extracted yet.{' '}
            <button type="button" className="link" onClick={reload}>
              Check the text again
            </button>
          </p>
        ) : (
          <>
            {markdown && tooLong ? (
              <p className="muted small" data-testid="unformatted-note">
                The text is long (
                {(text.length / 1_000_000).toLocaleString(undefined, { maximumFractionDigits: 1 })} million
                characters), so it is shown as it is, without formatting.
              </p>
            ) : null}
            <TextView text={text} markdown={markdown && !tooLong} mark={mark} page={page} reveal={reveal} />
          </>
        )
      ) : null}
    </section>
  );
}
