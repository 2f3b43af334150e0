import { z } from 'zod';
import type { Citation } from './types.js';

/**
 * The shapes every face returns the same way: the HTTP API (and its OpenAPI document), the MCP tools
 * and the OpenAI-compatible endpoint build them from here, so that a citation is one object wherever
 * a caller meets it. `satisfies` below keeps the shape and the domain type from drifting apart.
 */
export const CitationShape = z
  .object({
    documentId: z.string(),
    filename: z.string().describe('File name, or the URL for an ingested web page'),
    sourceUrl: z.string().nullable(),
    mediaType: z.string().nullable(),
    page: z.number().int().nullable().describe('First page of the passage (paged formats)'),
    pageEnd: z.number().int().nullable(),
    charStart: z.number().int().describe("Offset of the passage in the document's text"),
    charEnd: z.number().int(),
    chunkId: z.string(),
    headingPath: z.array(z.string()).describe('Headings above the passage, outermost first'),
    score: z.number(),
    source: z.string().nullable().describe('The source the document was synced from; null for uploads'),
    sourceItem: z
      .string()
      .nullable()
      .describe('Where a synced document is in its source (path in the folder, object key, page URL)'),
    version: z.number().int().describe('The version of the document the passage is from'),
  })
  .meta({ id: 'Citation' });

/** A citation's fields only, in the shape's order: what every face returns for it. */
export function citationView(c: Citation): Citation {
  return {
    documentId: c.documentId,
    filename: c.filename,
    sourceUrl: c.sourceUrl,
    mediaType: c.mediaType,
    page: c.page,
    pageEnd: c.pageEnd,
    charStart: c.charStart,
    charEnd: c.charEnd,
    chunkId: c.chunkId,
    headingPath: c.headingPath,
    score: c.score,
    source: c.source,
    sourceItem: c.sourceItem,
    version: c.version,
  } satisfies z.infer<typeof CitationShape>;
}
