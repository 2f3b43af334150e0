import type { Citation } from '@service/sdk';
import { documentHref } from '../lib/links';
import { Link } from '../router';
import { DocumentName, documentLabel } from './DocumentName';

const pages = (c: Pick<Citation, 'page' | 'pageEnd'>) =>
  c.page ? `, page ${c.page}${c.pageEnd && c.pageEnd !== c.page ? `–${c.pageEnd}` : ''}` : '';

/** Where a passage is, in words: its document (by its path in a source), its page. */
export const citationPlace = (c: Citation) => `${documentLabel(c)}${pages(c)}`;

export const citationHref = (c: Citation) =>
  documentHref(c.documentId, { mediaType: c.mediaType, page: c.page, start: c.charStart, end: c.charEnd });

/**
 * A passage's place, the same in search results and in an answer's citations: a link to the document
 * opened at the passage, its page, and the headings it sits under.
 */
export function CitationPlace({ c }: { c: Citation }) {
  return (
    <>
      <Link to={citationHref(c)} className="citation-link">
        <DocumentName filename={c.filename} sourceItem={c.sourceItem} />
        {pages(c)}
      </Link>
      {c.headingPath.length > 0 ? (
        <span className="muted small heading-path"> · {c.headingPath.join(' › ')}</span>
      ) : null}
    </>
  );
}
