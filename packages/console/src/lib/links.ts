export const isPdf = (mediaType: string | null | undefined) => mediaType === 'application/pdf';

/**
 * The URL of a document's screen, opened at a cited passage. `view=pdf` tells the screen up front that
 * it will render a PDF, so it fetches the file and the PDF renderer at the same time as the rest.
 */
export function documentHref(
  id: string,
  at: { mediaType?: string | null; page?: number | null; start?: number; end?: number } = {},
): string {
  const q = new URLSearchParams();
  if (isPdf(at.mediaType)) q.set('view', 'pdf');
  if (at.page) q.set('page', String(at.page));
  if (at.start !== undefined && at.end !== undefined) {
    q.set('start', String(at.start));
    q.set('end', String(at.end));
  }
  const s = q.toString();
  return `/documents/${encodeURIComponent(id)}${s ? `?${s}` : ''}`;
}

/** Where the browser downloads a document's original bytes (same origin: the session cookie goes along). */
export const contentHref = (id: string) => `/v1/documents/${encodeURIComponent(id)}/content`;
