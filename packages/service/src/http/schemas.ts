import { z } from 'zod';
import { CitationShape } from '../domain/shapes.js';
import { DOCUMENT_STAGES, DOCUMENT_STATUSES, QUOTAS, RUN_KINDS, RUN_STATUSES } from '../domain/types.js';
import { DocumentAccess, WorkspaceAccess } from './access-schemas.js';
import { SyncChanges } from './source-views.js';

/** JSON shapes of the API. Routes declare them, so the OpenAPI document and the responses agree. */

export const RefusedFile = z
  .object({
    index: z.number().int().describe("The file's position among the upload's files, from 0"),
    filename: z.string(),
    code: z
      .string()
      .describe('What its document would have failed with: empty_document or unsupported_media_type'),
    reason: z.string(),
  })
  .meta({ id: 'RefusedFile' });

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().describe('Stable snake_case code; branch on this, not on the message'),
      message: z.string(),
      requestId: z.string(),
      files: z
        .array(RefusedFile)
        .optional()
        .describe('unsupported_file_format only: every file refused, with its reason'),
      supportedFormats: z
        .array(z.string())
        .optional()
        .describe('unsupported_file_format only: the formats the service reads (GET /v1/formats)'),
      problems: z
        .array(z.object({ line: z.number().int(), message: z.string() }))
        .optional()
        .describe(
          'invalid_questions only: the bad questions (up to 100), by line of the file or place in the list, from 1',
        ),
      quota: z
        .enum(QUOTAS)
        .optional()
        .describe(
          'quota_exceeded only: the quota exceeded (403 for documents and storedBytes, 429 for the daily ones)',
        ),
      limit: z.number().int().optional().describe("quota_exceeded only: the quota's limit"),
      used: z.number().int().optional().describe('quota_exceeded only: what the account had used of it'),
    }),
  })
  .meta({ id: 'Error' });

export const Workspace = z
  .object({
    id: z.string(),
    name: z.string().nullable().describe('Null for a workspace an upload created without a name'),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    language: z
      .string()
      .describe('"auto" (each document read in its own, detected language) or the ISO 639-1 code set for it'),
    languages: z.array(z.string()).describe('Languages its documents were indexed in (ISO 639-1 codes)'),
    access: WorkspaceAccess,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Workspace' });

const countShape = Object.fromEntries(DOCUMENT_STATUSES.map((s) => [s, z.number().int()])) as Record<
  (typeof DOCUMENT_STATUSES)[number],
  z.ZodNumber
>;
export const DocumentCounts = z
  .object({ total: z.number().int(), ...countShape })
  .meta({ id: 'DocumentCounts' });

export const RunFailure = z.object({
  documentId: z.string(),
  filename: z.string(),
  sourceItem: z
    .string()
    .nullable()
    .describe('Where the document is in its source (path, object key or page URL); null if not synced'),
  code: z.string(),
  message: z.string(),
});

export const Run = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    status: z.enum(RUN_STATUSES),
    kind: z
      .enum(RUN_KINDS)
      .describe(
        'What started it: an upload of files, a list of URLs, a sync of the source `sourceId`, or documents processed again',
      ),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
    sourceId: z.string().nullable().describe('The source a sync run synced; null for uploads and URL lists'),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe('Why a sync run failed as a whole (docs/api.md#sources); null otherwise'),
    skipped: z
      .object({
        total: z.number().int(),
        reasons: z.array(
          z.object({
            reason: z.string(),
            count: z.number().int(),
            examples: z.array(z.string()).describe("At most five of the items' paths"),
          }),
        ),
      })
      .nullable()
      .describe(
        'Items a sync left out because no worker can read them (archives, binary content, files over the size limit), by reason; null when none',
      ),
    changes: SyncChanges,
    counts: DocumentCounts.describe(
      'Its documents by state, those processed again in a later run (`reprocessedBy`) in the state they left it in',
    ),
    failures: z
      .array(RunFailure)
      .describe('Its failed documents, except those processed again in a later run since'),
    reprocessedBy: z
      .array(
        z.object({
          runId: z.string().describe('The later run (kind `reprocess`)'),
          documents: z.number().int().describe('How many of this run’s documents it took'),
        }),
      )
      .describe(
        'The runs that processed some of its documents again, oldest first (POST /v1/runs/{id}/reprocess, POST /v1/documents/{id}/reprocess); empty when none did',
      ),
    documentsPerSecond: z
      .number()
      .nullable()
      .describe(
        'Documents processed per second over the last minute of work (over the whole run once it is finished); null while nothing has been processed in that minute or while paused',
      ),
    etaSeconds: z
      .number()
      .int()
      .nullable()
      .describe(
        'Estimated seconds until every document is finished, at that pace; 0 once the run is finished, null when it cannot be estimated',
      ),
  })
  .meta({ id: 'Run' });

export const DocumentError = z.object({ code: z.string(), message: z.string() }).nullable();

export const Document = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    runId: z.string(),
    filename: z.string(),
    sourceUrl: z.string().nullable(),
    mediaType: z.string().nullable().describe('Detected from the content'),
    declaredMediaType: z.string().nullable().describe('As sent by the client'),
    sizeBytes: z.number().int().nullable().describe('Null for a URL until it has been fetched'),
    sha256: z.string().nullable(),
    status: z.enum(DOCUMENT_STATUSES),
    stage: z.enum(DOCUMENT_STAGES).describe('fetching only for URLs'),
    error: DocumentError,
    pageCount: z.number().int().nullable(),
    chunkCount: z.number().int().nullable(),
    language: z
      .string()
      .nullable()
      .describe('The language it was indexed in (ISO 639-1); null until it is processed'),
    metadata: z.record(z.string(), z.unknown()),
    source: z.string().nullable().describe('The source the document was synced from; null for uploads'),
    sourceItem: z
      .string()
      .nullable()
      .describe("The source's item: an object key, a page's canonical URL or a path under the folder"),
    version: z.number().int().describe('1, then one more each time a sync re-processes a changed item'),
    access: DocumentAccess,
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'Document' });

export const ReprocessResponse = z
  .object({
    run: Run.describe('The new run (kind `reprocess`) the documents are processed in'),
    documents: z.array(Document).describe('The documents moved into it, queued again'),
  })
  .meta({ id: 'ReprocessResponse' });

export const UploadResponse = z
  .object({ workspace: Workspace, run: Run, documents: z.array(Document) })
  .meta({ id: 'UploadResponse' });

export const RunProgress = Run.extend({
  progress: z.number().min(0).max(1).describe('Share of documents that have finished (any outcome)'),
  done: z.boolean().describe('True once the run will not change any more'),
  documents: z.array(Document).describe("The run's documents, each as GET /v1/documents/{id} shows it"),
}).meta({ id: 'RunProgress' });

// One shape for every face (domain/shapes.ts): MCP returns the same citation objects.
export const Citation = CitationShape;

export const Snippet = z
  .object({
    text: z.string().describe("A short excerpt of the passage around the query's words"),
    charStart: z.number().int().describe('Offset of the excerpt in GET /v1/documents/{id}/text'),
    charEnd: z.number().int(),
    highlights: z
      .array(z.object({ start: z.number().int(), end: z.number().int() }))
      .describe("The query's words in the excerpt, as offsets into snippet.text"),
  })
  .meta({ id: 'Snippet' });

export const SearchHit = z
  .object({ text: z.string(), score: z.number(), citation: Citation, snippet: Snippet })
  .meta({ id: 'SearchHit' });
/** Milliseconds per stage, with `?timings=true`: only the stages the request went through. */
export const Timings = z
  .object({
    prepareMs: z.number().optional().describe('The workspace, its languages and the filters resolved'),
    retrievalMs: z.number().optional().describe('The index queried (and the question embedded)'),
    rankingMs: z
      .number()
      .optional()
      .describe('Candidates rescored, fused and checked against the ready documents'),
    rerankMs: z.number().optional().describe('The reranker, with the rescoring of its candidates'),
    snippetsMs: z.number().optional(),
    answerMs: z.number().optional().describe('The extractive answer composed'),
    modelMs: z.number().optional().describe('The chat model asked'),
    totalMs: z.number(),
  })
  // Inline, not a component: an optional reference in a response becomes a one-item allOf.
  .describe('Milliseconds per stage (with ?timings=true), only the stages the request went through');
export const SearchResponse = z
  .object({ results: z.array(SearchHit), timings: Timings.optional() })
  .meta({ id: 'SearchResponse' });

export const AnswerCitation = Citation.extend({
  n: z.number().int().describe("The number used in the answer's [n] markers"),
  text: z.string().describe('The cited words'),
}).meta({ id: 'AnswerCitation' });
export const AnswerKind = z
  .enum(['extractive', 'model', 'declined'])
  .describe(
    "How the answer was made: sentences quoted from the passages, written by the configured chat model, or declined (the workspace holds no answer; the text says so in the question's language)",
  )
  .meta({ id: 'AnswerKind' });

export const ChatResponse = z
  .object({
    answer: z.string(),
    citations: z.array(AnswerCitation),
    kind: AnswerKind,
    timings: Timings.optional(),
  })
  .meta({ id: 'ChatResponse' });

export const Availability = z
  .object({
    workspaceId: z.string(),
    complete: z.boolean().describe('True when no document is waiting to be indexed'),
    searchable: z.array(z.object({ documentId: z.string(), filename: z.string() })),
    pending: z.array(
      z.object({ documentId: z.string(), filename: z.string(), status: z.string(), stage: z.string() }),
    ),
    unavailable: z.array(
      z.object({
        documentId: z.string(),
        filename: z.string(),
        status: z.string(),
        code: z.string().nullable(),
      }),
    ),
    counts: DocumentCounts,
  })
  .meta({ id: 'Availability' });

export const WorkspaceWithCounts = Workspace.extend({ counts: DocumentCounts }).meta({
  id: 'WorkspaceSummary',
});

export const WorkspaceDeletion = z
  .object({
    workspace: Workspace,
    documents: z.number().int().describe('Documents deleted with it'),
    cancelledRuns: z
      .number()
      .int()
      .describe('Its runs that were processing or paused, ended by the deletion'),
    storage: z
      .enum(['done', 'pending'])
      .describe(
        'done: its index tables and stored files are removed too; pending: storage failed meanwhile and the workers remove them',
      ),
  })
  .meta({ id: 'WorkspaceDeletion' });

export const Formats = z
  .object({
    formats: z.array(
      z.object({
        name: z.string(),
        extensions: z.array(z.string()),
        mediaTypes: z.array(z.string()),
        profile: z
          .enum(['default', 'full'])
          .describe('full: read only by workers with WORKER_PROFILE=full (OCR, LibreOffice)'),
      }),
    ),
    refused: z
      .array(z.string())
      .describe('What an upload refuses (415 unsupported_file_format), whatever the file is called'),
    languages: z
      .array(z.object({ code: z.string(), name: z.string() }))
      .describe(
        "Languages read with their own word forms and stop words (a workspace's `language` may be one of these codes, or `auto`); text in any other language is read word for word",
      ),
  })
  .meta({ id: 'Formats' });
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};
