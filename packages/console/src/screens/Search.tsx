import type { SearchHit } from '@service/sdk';
import { type FormEvent, type ReactNode, useState } from 'react';
import { sdk } from '../api';
import { CitationPlace } from '../components/Citation';
import { Details, ErrorNote, Loading } from '../components/common';
import { Markdown, useMarkdown } from '../components/Markdown';
import { NothingToSearch } from '../components/NothingToSearch';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { useLoad, useTitle } from '../lib/hooks';
import { markSplitter, withMarkRanges } from '../lib/marks';
import { highlightTerms } from '../lib/text';
import { workspaceLabel } from '../lib/workspaces';
import { navigate, useLocation } from '../router';

/** Marked runs of text: `<mark>` around what `split` marks. */
function marked(parts: { text: string; marked: boolean }[]): ReactNode {
  return parts.map((part, i) =>
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one run never reorder.
    part.marked ? <mark key={i}>{part.text}</mark> : part.text,
  );
}

/**
 * One result: the passage's best excerpt for the query (the service's snippet, its words marked),
 * and the whole passage on request. Passages run to 2,000 characters: ten of them whole would bury
 * the list.
 */
function Result({ hit, q }: { hit: SearchHit; q: string }) {
  const [whole, setWhole] = useState(false);
  const c = hit.citation;
  const plain = c.mediaType === 'text/plain';
  const shorter = hit.snippet.text.length > 0 && hit.snippet.text.length < hit.text.trim().length;
  let body: ReactNode;
  if (whole || !shorter) {
    const highlight = (s: string) => marked(highlightTerms(s, q));
    body = plain ? (
      <p className="passage plain">{highlight(hit.text)}</p>
    ) : (
      <Markdown source={hit.text} text={highlight} className="passage" />
    );
  } else {
    const split = markSplitter();
    const source = withMarkRanges(hit.snippet.text, hit.snippet.highlights);
    body = plain ? (
      <p className="passage plain snippet">{marked(split(source))}</p>
    ) : (
      <Markdown source={source} text={(s) => marked(split(s))} className="passage snippet" />
    );
  }
  return (
    <li className="result">
      <div className="result-head">
        <CitationPlace c={c} />
      </div>
      {body}
      <div className="result-foot">
        {shorter ? (
          <button type="button" className="link small" aria-expanded={whole} onClick={() => setWhole(!whole)}>
            {whole ? 'Show the excerpt only' : 'Show the whole passage'}
          </button>
        ) : null}
        <Details of={c.filename}>
          relevance score <code>{hit.score.toFixed(3)}</code> · passage <code>{c.chunkId}</code>
        </Details>
      </div>
    </li>
  );
}

export function SearchScreen({ workspaceId }: { workspaceId: string }) {
  const { params } = useLocation();
  const q = params.get('q') ?? '';
  const [draft, setDraft] = useState(q);
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  const { data: availability } = useLoad(
    (signal) => sdk.getAvailability(workspaceId, { signal }),
    [workspaceId],
  );
  const where = workspace ? ` · ${workspaceLabel(workspace)}` : '';
  useTitle(q ? `Search: ${q}${where}` : `Search${where}`);
  // The renderer for the passages' Markdown comes while the search runs.
  useMarkdown();
  // The query lives in the URL, so a search can be bookmarked and the back button returns to it.
  const { data, error, loading } = useLoad(
    (signal) => (q ? sdk.search({ workspaceId, q, topK: 10 }, { signal }) : Promise.resolve(undefined)),
    [workspaceId, q],
  );
  const empty = availability && availability.counts.total - availability.counts.deleted === 0;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    if (text) navigate(`/workspaces/${workspaceId}/search?q=${encodeURIComponent(text)}`);
  };

  return (
    <section>
      <WorkspaceHeader id={workspaceId} workspace={workspace} current="search" />
      <NothingToSearch id={workspaceId} availability={availability} />
      {empty ? null : (
        <form className="ask" onSubmit={submit}>
          <input
            type="search"
            name="q"
            aria-label="Search the workspace"
            placeholder="What are you looking for?"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
          <button type="submit" className="primary">
            Search
          </button>
        </form>
      )}
      {error ? <ErrorNote error={error} title="Search failed" /> : null}
      {q && loading && !data ? <Loading /> : null}
      {data && data.results.length === 0 && !empty ? (
        <p className="muted">No passage matches “{q}”.</p>
      ) : null}
      {data && data.results.length > 0 ? (
        <ol className="results" data-testid="search-results">
          {data.results.map((hit) => (
            <Result key={hit.citation.chunkId} hit={hit} q={q} />
          ))}
        </ol>
      ) : null}
    </section>
  );
}
