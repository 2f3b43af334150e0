import { z } from 'zod';
import { errors } from '../errors.js';
import { ID_SHAPE } from '../ids.js';

/**
 * The search and answer request, whichever face it comes through (the HTTP API, the MCP tools, the
 * OpenAI-compatible endpoint, an evaluation): the shape of its filters, its limits and its defaults.
 * The faces parse with the shapes here; the operations (`searchWorkspace`, `searchPassages`,
 * `answerQuestion`, `answerStream`) check every request against the limits, so that no face can
 * forget one, and all of them answer an oversized request with the same error.
 */

/** What a request that leaves a choice out gets. */
export const REQUEST_DEFAULTS = {
  /** Passages a search returns. */
  searchTopK: 10,
  /** Passages an answer is drawn from. */
  answerTopK: 8,
  /** Of which at most this many come from one document, so that one long document cannot fill them. */
  answerPassagesPerDocument: 3,
} as const;

/**
 * Bounds of a request's filters and options. Each metadata value becomes a database parameter:
 * unbounded, a filter would run into the database's limit on parameters and fail as if the database
 * were down.
 */
export const REQUEST_BOUNDS = {
  documentIds: 1000,
  filenames: 1000,
  filenameChars: 1000,
  mediaTypes: 100,
  mediaTypeChars: 200,
  metadataKeyChars: 200,
  metadataValuesPerKey: 100,
  metadataValues: 1000,
  maxChunksPerDocument: 100,
} as const;

/** The service's own limits (QUERY_MAX_CHARS, SEARCH_MAX_TOP_K). */
export interface RequestLimits {
  maxQueryChars: number;
  maxTopK: number;
}

const B = REQUEST_BOUNDS;

/** A search's or an answer's filters, as every face accepts them. */
export const SearchFiltersShape = z
  .strictObject({
    documentIds: z
      .array(z.string().max(100).regex(ID_SHAPE, 'not a document id'))
      .max(B.documentIds)
      .optional(),
    filenames: z.array(z.string().max(B.filenameChars)).max(B.filenames).optional(),
    mediaTypes: z
      .array(z.string().max(B.mediaTypeChars))
      .max(B.mediaTypes)
      .optional()
      .describe('Detected media types, e.g. "application/pdf"; "text/*" matches a family'),
    metadata: z
      .record(z.string().max(B.metadataKeyChars), z.unknown())
      .optional()
      .describe(
        `Upload metadata: every key must match; an array lists alternatives (at most ${B.metadataValuesPerKey} a key, ${B.metadataValues.toLocaleString('en')} in all)`,
      ),
  })
  .optional()
  .describe('Restrict to matching documents');

export type SearchFilters = NonNullable<z.infer<typeof SearchFiltersShape>>;

/** How many passages a request asks for: within the service's limit, `fallback` when not given. */
export const topKShape = (limits: RequestLimits, fallback: number, fromText = false) =>
  (fromText ? z.coerce.number() : z.number()).int().min(1).max(limits.maxTopK).default(fallback);

/** How many passages of one document a search may return at most. */
export const MaxChunksPerDocumentShape = z
  .number()
  .int()
  .min(1)
  .max(B.maxChunksPerDocument)
  .describe('At most this many passages of one document');

/** What every request is checked for, whatever face it came through. */
interface CheckedRequest {
  q: string;
  topK: number;
  filters?: SearchFilters | undefined;
  maxChunksPerDocument?: number | undefined;
}

/**
 * Refuses a request over the service's limits or the filters' bounds with the error the caller can
 * act on (query_too_long, too_many_filter_values, invalid_request). Without `limits` (an in-process
 * caller that is no face: a benchmark, a test) only the bounds are checked.
 */
export function checkRequest(req: CheckedRequest, limits: RequestLimits | undefined): void {
  if (limits && req.q.length > limits.maxQueryChars) throw errors.queryTooLong(limits.maxQueryChars);
  const maxTopK = limits?.maxTopK ?? Number.POSITIVE_INFINITY;
  if (!Number.isInteger(req.topK) || req.topK < 1 || req.topK > maxTopK)
    throw errors.invalidRequest(`topK must be a whole number from 1 to ${maxTopK}; ${req.topK} was given.`);
  const perDocument = req.maxChunksPerDocument;
  if (
    perDocument !== undefined &&
    (!Number.isInteger(perDocument) || perDocument < 1 || perDocument > B.maxChunksPerDocument)
  )
    throw errors.invalidRequest(
      `maxChunksPerDocument must be a whole number from 1 to ${B.maxChunksPerDocument}; ${perDocument} was given.`,
    );
  let total = 0;
  for (const [key, value] of Object.entries(req.filters?.metadata ?? {})) {
    const count = Array.isArray(value) ? value.length : 1;
    if (count > B.metadataValuesPerKey)
      throw errors.tooManyFilterValues(
        `filters.metadata.${key} has ${count} values; at most ${B.metadataValuesPerKey}`,
      );
    total += count;
  }
  if (total > B.metadataValues)
    throw errors.tooManyFilterValues(
      `filters.metadata has ${total} values; at most ${B.metadataValues} in all`,
    );
}
