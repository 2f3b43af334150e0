// Over 400 lines: every port of the domain in one place, so that what an adapter must do is read in one file.
import type { Readable } from 'node:stream';
import type { DocumentFailure } from '../errors.js';
import type { JobHandlers, JobName, JobPayload } from './jobs.js';
import type { TextMap } from './text-map.js';

/** Raw and derived artifacts (originals, extracted text). A folder in embedded mode, S3 in the stack. */
export interface ObjectStore {
  put(key: string, body: Readable | Buffer | string, contentType?: string): Promise<void>;
  /** Resolves to undefined when the object does not exist. */
  get(key: string): Promise<Readable | undefined>;
  getBuffer(key: string): Promise<Buffer | undefined>;
  /** Bytes `start` up to (not including) `end` of an object, fewer past its end; undefined when it does not exist. */
  getRange(key: string, start: number, end: number): Promise<Buffer | undefined>;
  delete(keys: string[]): Promise<void>;
  check(): Promise<void>;
}

/**
 * The room left on the disk uploads are written to (STORAGE_MIN_FREE_MB): writing is refused while
 * it would leave less than the floor free, so one upload cannot fill the disk the database, the
 * index and every other account share.
 */
export interface StorageSpace {
  /** Throws `insufficient_storage` when `bytes` more would leave less than the floor free. */
  ensure(bytes: number): Promise<void>;
  /** As ensure, and counts the bytes as written (they are about to be). */
  reserve(bytes: number): Promise<void>;
}

/** One chunk as stored in a workspace's search index. */
export interface IndexRow {
  id: string;
  documentId: string;
  ordinal: number;
  text: string;
  headingPath: string[];
  filename: string;
  sourceUrl: string | null;
  mediaType: string | null;
  pageStart: number | null;
  pageEnd: number | null;
  charStart: number;
  charEnd: number;
  /** The document's title and the chunk's heading path: searched as a separate, weighted field. */
  heading: string;
  /** The text's words as codes (search/word-codes.ts), for ranking; absent on rows indexed before them. */
  wordCodes?: Uint32Array | undefined;
  /** The language the row was indexed in (ISO 639-1); English on rows indexed before languages. */
  language?: string | undefined;
  /** What the full-text index holds for the row (search/indexing.ts `searchTerms`); written, never read back. */
  terms?: string | undefined;
}

export interface IndexHit {
  row: IndexRow;
  score: number;
}

/**
 * Which documents' rows a query may consider: only those of `documentIds`, none of
 * `excludeDocumentIds`, or (both absent) all. Applied inside the index's query, before ranking: a
 * caller who may see some documents of a workspace gets `limit` rows of those (decision 0017).
 */
export interface DocumentScope {
  documentIds?: string[] | undefined;
  excludeDocumentIds?: string[] | undefined;
}

export interface IndexQuery extends DocumentScope {
  /** The query as typed. */
  text: string;
  /**
   * Its terms as each of the workspace's languages reads them (search/indexing.ts), space-separated;
   * by default, the text's English terms.
   */
  terms?: string | undefined;
  limit: number;
  /** Only rows indexed in this language (ISO 639-1); every row when absent. */
  language?: string | undefined;
  /**
   * Further terms that count as the query's own: the words documents use for the words people use
   * ("timezone" for "time zone").
   */
  expansions?: string[] | undefined;
}

/** A guess at the language of a text: an ISO 639-1 code, and whether the guess is sure enough to act on. */
export interface DetectedLanguage {
  language: string;
  reliable: boolean;
  /** How well each language fits, 0–1, best first (the detected one among them). */
  scores?: { language: string; score: number }[] | undefined;
}

/** Tells which language a text is written in (a document's text, or a question). */
export interface LanguageDetector {
  /** Undefined when the text gives nothing to go on (no letters). */
  detect(text: string): Promise<DetectedLanguage | undefined>;
}

/**
 * The words of the language questions are asked in (a dictionary, not a workspace's vocabulary): a
 * question that names something that is neither an ordinary word nor in any retrieved passage asks
 * about something the workspace does not hold.
 */
export interface Lexicon {
  isWord(word: string): boolean;
  /** Known only as a noun, in every form the word may come from: a thing's name ("cockpit", "rugby"). */
  isNounOnly(word: string): boolean;
  /**
   * The form is in the list as it is (accents ignored), not only as a compound of listed words: what
   * compound splitting builds on (text/compounds.ts). Lexicons that are no word list leave it out.
   */
  lists?(form: string): boolean;
  /** Written in lower case by the list (accents ignored): in German a verb or adjective, no noun. */
  writtenLowerCase?(form: string): boolean;
}

/** Each language's lexicon, where it has one (English: WordNet; German, French, Spanish: word lists). */
export interface Lexicons {
  forLanguage(code: string): Promise<Lexicon | undefined>;
}

/** A bilingual dictionary: the translations of the headwords whose key is `key`, first sense first. */
export interface Dictionary {
  translations(key: string): readonly string[];
}

/** The bilingual dictionaries installed; headwords are looked up by `keyOf` (the source language's term). */
export interface Dictionaries {
  forPair(from: string, to: string, keyOf: (word: string) => string): Promise<Dictionary | undefined>;
}

/** A chunk's vector in one model's vector space. */
export interface VectorRow {
  id: string;
  documentId: string;
  vector: Float32Array;
}

/** Where a workspace's vectors of one model live: the model id and the vectors' length. */
export interface VectorSpace {
  model: string;
  dimension: number;
}

export interface VectorQuery extends DocumentScope {
  vector: Float32Array;
  limit: number;
}

/** A document's rows (chunks or vectors), for writing several documents at once. */
export interface DocumentRows<Row> {
  documentId: string;
  rows: Row[];
}

/** A term to count in a workspace's rows. */
export interface CountedTerm {
  /** As the index holds it (`IndexRow.terms`). */
  term: string;
  /** As typed: what a table made before languages, which analyses its queries itself, is asked; the term by default. */
  text?: string | undefined;
}

/** A workspace's rows and, of each term asked (in the order asked), the rows holding it, up to the cap asked. */
export interface TermCounts {
  rows: number;
  counts: number[];
}

/** Per-workspace full-text index of chunks (LanceDB). */
export interface SearchIndex {
  /** Atomically replaces every row of one document with `rows` (an empty array removes it). */
  replaceDocument(workspaceId: string, documentId: string, rows: IndexRow[]): Promise<void>;
  /** The same for several documents in one commit (a batch): none is ever seen half-replaced. */
  replaceDocuments(workspaceId: string, documents: DocumentRows<IndexRow>[]): Promise<void>;
  countDocumentRows(workspaceId: string, documentId: string): Promise<number>;
  /** Rows of the whole workspace (0 for one without an index yet). */
  countRows(workspaceId: string): Promise<number>;
  /**
   * The workspace's rows, and how many of them hold each index term (`IndexRow.terms`) counted up to
   * `cap` (a term in more rows than that is common, however many more): everything the answerer asks
   * the index about a question's words, in one call.
   */
  termCounts(
    workspaceId: string,
    terms: CountedTerm[],
    cap: number,
    scope?: DocumentScope,
  ): Promise<TermCounts>;
  /** Rows of each of the documents (0 for one without any). */
  countRowsByDocument(workspaceId: string, documentIds: string[]): Promise<Map<string, number>>;
  deleteDocument(workspaceId: string, documentId: string): Promise<void>;
  search(workspaceId: string, query: IndexQuery): Promise<IndexHit[]>;
  /** Chunk vectors are kept per vector space, beside the chunks; each document's set is replaced whole. */
  replaceVectors(
    workspaceId: string,
    space: VectorSpace,
    documents: DocumentRows<VectorRow>[],
  ): Promise<void>;
  /** Nearest chunks by cosine similarity (score 1 = same direction); [] when the space has no vectors. */
  vectorSearch(workspaceId: string, space: VectorSpace, query: VectorQuery): Promise<IndexHit[]>;
  /** Ids of chunks that have a vector in `space`. */
  vectorIds(workspaceId: string, space: VectorSpace): Promise<Set<string>>;
  /** Every chunk of the workspace, a page at a time in id order (for re-embedding). */
  listRows(workspaceId: string, afterId: string | null, limit: number): Promise<IndexRow[]>;
  /** Adds or overwrites vectors without touching the document's others (re-embedding in pages). */
  upsertVectors(workspaceId: string, space: VectorSpace, rows: VectorRow[]): Promise<void>;
  /** Removes a workspace's vectors of every space but `keep`. */
  dropVectorSpaces(workspaceId: string, keep: VectorSpace | undefined): Promise<void>;
  /** Removes everything of the workspace: its chunks and its vectors of every space. Safe to repeat. */
  dropWorkspace(workspaceId: string): Promise<void>;
  /**
   * Folds recent writes into the index, compacts small fragments and removes versions replaced more
   * than `keptSeconds` ago; answers how many replaced versions remain (for a later run to remove).
   */
  optimize(workspaceId: string): Promise<{ oldVersions: number; keptSeconds: number }>;
  check(): Promise<void>;
  close(): Promise<void>;
}

/** Turns text into vectors of one model's space. */
export interface Embedder {
  /** Identifies the vector space: vectors of different ids are never compared. */
  readonly model: string;
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
  embedPassages(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Scores passages against a query by reading both together (a cross-encoder): higher is more relevant. */
export interface Reranker {
  readonly model: string;
  /** One score per passage, in the passages' order, comparable within one call. */
  score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]>;
}

/** The embedding model recorded for a workspace's vectors (`complete` once every chunk has one). */
export interface EmbeddingState extends VectorSpace {
  complete: boolean;
}

export interface EmbeddingStateStore {
  getEmbeddingState(workspaceId: string): Promise<EmbeddingState | undefined>;
  /** Records the state unless one exists; returns the state in force afterwards. */
  initEmbeddingState(workspaceId: string, state: EmbeddingState): Promise<EmbeddingState>;
  setEmbeddingState(workspaceId: string, state: EmbeddingState): Promise<void>;
  /** Ready documents of the workspace other than `exceptDocumentIds`. */
  countOtherReadyDocuments(workspaceId: string, exceptDocumentIds: string[]): Promise<number>;
  /** Workspaces with ready documents whose vectors are not complete in `model`. */
  workspacesNeedingEmbeddings(model: string, limit: number): Promise<string[]>;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** A chat model behind an OpenAI-compatible API. */
export interface ChatModel {
  readonly model: string;
  complete(req: ChatRequest): Promise<{ text: string; usage: ChatUsage | undefined }>;
  /** Text deltas as they arrive; the last item may carry usage. */
  stream(req: ChatRequest): AsyncIterable<{ delta: string } | { usage: ChatUsage }>;
}

export interface WorkerOptions {
  /** Consumers of each batched job, each handling one batch at a time. */
  concurrency: number;
  /** Most jobs of a batched job a consumer takes at once. */
  batchSize: number;
  /** Consumers of a job that is not batched, each handling one job at a time (one by default). */
  consumers?: Partial<Record<JobName, number>>;
}

export interface EnqueueOptions {
  /** Wait this long before the job may start (the job's own wait, jobs.ts, by default). */
  delaySeconds?: number;
  /** Taken before the jobs already waiting (documents a batch had to leave). */
  ahead?: boolean;
  /** Wake this process's consumers at once for a job of a paced queue (jobs.ts) that may start now. */
  wake?: boolean;
}

/**
 * Background jobs (pg-boss in its own database), as declared in jobs.ts. One job waits per singleton
 * key: enqueueing the same work twice while it waits is a no-op.
 */
export interface JobQueue {
  enqueue<K extends JobName>(name: K, payload: JobPayload<K>, options?: EnqueueOptions): Promise<void>;
  /** Many jobs of one kind in few round trips (documents by the thousand). */
  enqueueMany<K extends JobName>(
    name: K,
    payloads: readonly JobPayload<K>[],
    options?: EnqueueOptions,
  ): Promise<void>;
  startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void>;
  /** Stops taking jobs and waits for the handlers still running; enqueueing keeps working. */
  stopWorkers(): Promise<void>;
  /**
   * Jobs of one kind waiting (queued) and being handled (active). With `takenWithinSeconds`, only
   * jobs taken that recently count as active: a handler that could not record its end (its database
   * was gone) leaves its job active until the job expires, hours later.
   */
  depth(
    name: JobName,
    options?: { takenWithinSeconds?: number },
  ): Promise<{ queued: number; active: number }>;
  check(): Promise<void>;
  stop(): Promise<void>;
}

export interface RateLimiter {
  /** Counts one request for `key`; says whether it is allowed and, if not, when to retry. */
  consume(key: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /** Gives one request back (a sign-in that succeeded should not count against the person). */
  reward(key: string): Promise<void>;
  check(): Promise<void>;
  close(): Promise<void>;
}

/** What a parser makes of a file: Markdown text with `<!-- page N -->` markers for paged formats. */
export interface ParsedDocument {
  mediaType: string;
  text: string;
  pageCount: number | null;
  title: string | null;
  /** The text's language when the parser was asked to tell it (parseGroup), null for nothing to go on. */
  language?: DetectedLanguage | null | undefined;
}

export interface ParseInput {
  /** Path of a local copy of the original bytes. */
  path: string;
  filename: string;
  declaredMediaType: string | null;
  /**
   * Documents of one group (the worker passes the workspace) may be parsed one after another by the
   * same sandboxed process; documents of different groups never are.
   */
  group?: string | undefined;
}

/** A small document's bytes, parsed with others of its group in one go (see DocumentParser.parseGroup). */
export interface SmallDocument {
  bytes: Buffer;
  filename: string;
  declaredMediaType: string | null;
}

/**
 * One document's outcome in a group: its text, its own failure, or `undefined` when it was not
 * parsed (the group ran out of time, or broke a limit that cannot be pinned on one document): it is
 * then parsed alone.
 */
export type GroupParse = ParsedDocument | DocumentFailure | undefined;

/** Who an identity provider says signed in, from a verified ID token. */
export interface ProvidedIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean | undefined;
  name: string | undefined;
  /** The names in the groups claim (OIDC_GROUPS_CLAIM); empty when it has none. */
  groups: string[];
  /** Kept with the session, to end the provider's session at sign-out. */
  idToken: string;
}

/** What a sign-in under way keeps until the provider sends the person back (state, nonce, PKCE). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * The organisation's identity provider (OpenID Connect, adapters/oidc/): where to send a person to
 * sign in, and the verified identity its callback carries. Every check of the answer (state, nonce,
 * PKCE, issuer, audience, expiry, signature) is the certified relying-party library's.
 */
export interface IdentityProvider {
  readonly displayName: string;
  /** A new sign-in: the provider's authorization URL, and what to keep for the callback. */
  begin(): Promise<{ url: URL; pending: PendingSignIn }>;
  /** Throws SignInRefused, with a reason for people, for any answer that does not verify. */
  verify(callbackUrl: URL, pending: PendingSignIn): Promise<ProvidedIdentity>;
  /** Where to send the browser to end the provider's session too; undefined when it offers none. */
  endSessionUrl(idToken: string, postLogoutRedirect: string): Promise<string | undefined>;
  /** Readiness: the provider's metadata can be read (/ready's identityProvider check). */
  check(): Promise<void>;
}

/** What a parsed document's text is turned into index rows from (processing/prepare.ts). */
export interface PrepareRequest {
  document: { id: string; filename: string; sourceUrl: string | null };
  mediaType: string;
  title: string | null;
  text: string;
  /** The workspace's `language` setting: `auto`, or the language every document is read in. */
  workspaceLanguage: string;
  /** What the parser process told of the text's language (ParsedDocument.language), if it was asked. */
  told?: DetectedLanguage | null | undefined;
}

export interface PreparedText {
  /** The language the rows were made in (ISO 639-1). */
  language: string;
  /** One row per chunk, in order. */
  rows: IndexRow[];
  /** Where the stored text holds what, for reading windows of it (domain/text-map.ts). */
  textMap: TextMap;
}

/**
 * Turns a parsed text into its language, chunks and index rows: one pass over the whole text, which
 * for a large one is seconds of CPU, so the worker's preparer runs it off the event loop that also
 * serves requests (adapters/threads/).
 */
export interface TextPreparer {
  /** Whether it tells a text's language when the workspace leaves it to detection (else English). */
  readonly detectsLanguages: boolean;
  /**
   * Throws DocumentFailure for a text without words and for one that broke the preparation's
   * limits (its time or its memory); rejects with the signal's reason when it is aborted.
   */
  prepare(request: PrepareRequest, signal: AbortSignal): Promise<PreparedText>;
}

export interface DocumentParser {
  /** Throws DocumentFailure for input that cannot be parsed. */
  parse(input: ParseInput, signal: AbortSignal): Promise<ParsedDocument>;
  /**
   * Parses several small documents of one group in one request, where a parser can (most of the cost
   * of a small document is the request around it). Each outcome is in the order of `documents`.
   */
  parseGroup?(
    documents: SmallDocument[],
    group: string,
    signal: AbortSignal,
    /** detectLanguage: also tell each one's language, with eld on documentLanguage's sample. */
    options?: { detectLanguage?: boolean | undefined },
  ): Promise<GroupParse[]>;
}

export interface FetchedResource {
  body: Readable;
  contentType: string | null;
  finalUrl: string;
  filename: string;
  /** The answer's HTTP status (304 when a conditional request found the resource unchanged). */
  status?: number | undefined;
  /** Validators for a later conditional request (synced websites). */
  etag?: string | null | undefined;
  lastModified?: string | null | undefined;
}

/** Fetches a URL for ingestion; throws DocumentFailure (url_forbidden, fetch_failed, …) when it must not or cannot. */
export interface UrlFetcher {
  /** `headers` go only to the URL's own origin, never to another host a redirect points at. */
  fetch(url: string, signal: AbortSignal, headers?: Record<string, string>): Promise<FetchedResource>;
}

/**
 * The items of synced sources, as the pipeline reads them (sources/items.ts): a source's document
 * gets its bytes from its source when it starts.
 */
export interface SourceItems {
  /**
   * A reader for one batch of documents. It reads each source's settings and decrypts its
   * credentials once, at its first item, and keeps them for that batch only: a change to a source
   * reaches the next batch.
   */
  forBatch(): SourceItemBatch;
}

export interface SourceItemBatch {
  /**
   * One item's bytes, within its type's size and time limits; throws DocumentFailure when this item
   * cannot be read (the source was deleted, its credentials cannot be decrypted, the item is gone).
   */
  open(sourceId: string, key: string, signal: AbortSignal): Promise<FetchedResource>;
  /** Lets go of what the batch's reads held (a source's folder kept open); called once, at its end. */
  close(): Promise<void>;
}

/** Decides whether a webhook URL may be registered: the request-forgery guard of URL ingestion. */
export interface WebhookTargetGuard {
  /** Why `url` (http or https, no credentials) must not receive webhooks, or undefined when it may. */
  refusal(url: URL): Promise<string | undefined>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

/** What came of one attempt: a 2xx `statusCode` is a success, anything else a failure. */
export interface WebhookResponse {
  statusCode: number | null;
  /** Why there is no success, in words (a refused address, a timeout, a redirect…); null on success. */
  error: string | null;
  /** The start of the answer's body. */
  response: string | null;
  /** Seconds the receiver asked to wait (Retry-After), when it said. */
  retryAfterSeconds: number | undefined;
}

/** Sends one webhook request, through the same guard as URL ingestion, with a time and size limit. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
