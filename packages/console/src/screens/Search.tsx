import { type FormEvent, type ReactNode, useState } from 'react';
import { sdk } from '../api';
import { Details, ErrorNote, Loading } from '../components/common';
import { Markdown, useMarkdown } from '../components/Markdown';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { useLoad, useTitle } from '../lib/hooks';
import { documentHref } from '../lib/links';
import { highlightTerms } from '../lib/text';
import { workspaceLabel } from '../lib/workspaces';
import { Link, navigate, useLocation } from '../router';

export function SearchScreen({ workspaceId }: { workspaceId: string }) {
  const { params } = useLocation();
  const q = params.get('q') ?? '';
  const [draft, setDraft] = useState(q);
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  const where = workspace ? ` · ${workspaceLabel(workspace)}` : '';
  useTitle(q ? `Search: ${q}${where}` : `Search${where}`);
  // The renderer for the passages' Markdown comes while the search runs.
  useMarkdown();
  // The query lives in the URL, so a search can be bookmarked and the back button returns to it.
  const { data, error, loading } = useLoad(
    (signal) => (q ? sdk.search({ workspaceId, q, topK: 10 }, { signal }) : Promise.resolve(undefined)),
    [workspaceId, q],
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    if (text) navigate(`/workspaces/${workspaceId}/search?q=${encodeURIComponent(text)}`);
  };

  return (
    <section>
      <WorkspaceHeader id={workspaceId} workspace={workspace} current="search" />
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
      {error ? <ErrorNote error={error} title="Search failed" /> : null}
      {q && loading && !data ? <Loading /> : null}
      {data && data.results.length === 0 ? <p className="muted">No passage matches “{q}”.</p> : null}
      {data && data.results.length > 0 ? (
        <ol className="results" data-testid="search-results">
          {data.results.map((hit) => {
            const c = hit.citation;
            const href = documentHref(c.documentId, {
              mediaType: c.mediaType,
              page: c.page,
              start: c.charStart,
              end: c.charEnd,
            });
            // Every run of the passage's text, with the query's words marked.
            const highlight = (s: string): ReactNode =>
              highlightTerms(s, q).map((part, i) =>
                // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one run never reorder.
                part.marked ? <mark key={i}>{part.text}</mark> : part.text,
              );
            return (
              <li key={c.chunkId} className="result">
                <div className="result-head">
                  <Link to={href} className="citation-link">
                    {c.filename}
                    {c.page
                      ? `, page ${c.page}${c.pageEnd && c.pageEnd !== c.page ? `–${c.pageEnd}` : ''}`
                      : ''}
                  </Link>
                  {c.headingPath.length > 0 ? (
                    <span className="muted small"> · {c.headingPath.join(' › ')}</span>
                  ) : null}
                </div>
                {c.mediaType === 'text/plain' ? (
                  <p className="passage plain">{highlight(hit.text)}</p>
                ) : (
                  <Markdown source={hit.text} text={highlight} className="passage" />
                )}
                <Details of={c.filename}>
                  relevance score <code>{hit.score.toFixed(3)}</code> · passage <code>{c.chunkId}</code>
                </Details>
              </li>
            );
          })}
        </ol>
      ) : null}
    </section>
  );
}
