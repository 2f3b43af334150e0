import type { RequestOptions } from '../transport.js';
import type { QuestionSet, QuestionSetSummary } from '../types.js';
import { type Api, DEFAULT_TIMEOUT_MS, id, readJson } from './api.js';

type BlobInput = NonNullable<ConstructorParameters<typeof Blob>[0]>[number];

/** A question as sent: only `q` is needed (docs/evaluation.md says what each field checks). */
export interface QuestionInput {
  q: string;
  /** Strings a right answer contains (compared after NFKC, case and white-space folding). */
  answers?: string[];
  /** Regular expressions a right answer matches, ignoring case (run by the server in linear time). */
  patterns?: string[];
  /** How `answers` are compared: `folded` (default) or `squad` (SQuAD's normalisation, whole words). */
  match?: 'folded' | 'squad';
  /** Document ids or filenames (`{document, page}` for a page), or `{passage}` a retrieved passage contains. */
  expected?: (string | { document: string; page?: number } | { passage: string })[];
  /** The workspace holds no answer: a right answer declines. */
  unanswerable?: boolean;
  language?: string | null;
  tags?: string[];
  /** Earlier turns of the conversation, oldest first: the question is asked as a follow-up to them. */
  history?: { role: 'user' | 'assistant'; content: string }[];
}

export type CreateQuestionSetParams =
  | { name: string; questions: QuestionInput[] }
  /** A JSONL, CSV or JSON file as uploaded: `filename` tells its format; `name` defaults to it. */
  | { name?: string; file: { filename: string; data: Blob | ArrayBuffer | ArrayBufferView | string } };

function fileBlob(data: Blob | ArrayBuffer | ArrayBufferView | string): Blob {
  if (typeof Blob !== 'undefined' && data instanceof Blob) return data;
  if (typeof data === 'string') return new Blob([data], { type: 'text/plain; charset=utf-8' });
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return new Blob([data as BlobInput]);
  throw new TypeError('file.data must be a Blob, an ArrayBuffer, a typed array or a string.');
}

const setsPath = (workspaceId: string) => `/v1/workspaces/${id(workspaceId, 'workspaceId')}/question-sets`;
const setPath = (questionSetId: string) => `/v1/question-sets/${id(questionSetId, 'questionSetId')}`;

/**
 * A workspace's question sets, for evaluations: `create` (questions, or a file), `list`, `get`,
 * `delete`. A set with any bad question is refused whole: `BadRequestError` with code
 * `invalid_questions`, whose `problems` name each one by line.
 */
export class QuestionSets {
  constructor(private readonly api: Api) {}

  /** Not retried: a second call would store a second set. */
  create(
    workspaceId: string,
    params: CreateQuestionSetParams,
    options?: RequestOptions,
  ): Promise<QuestionSet> {
    if ('questions' in params) return this.api.post(setsPath(workspaceId), params, false, options);
    if (!params.file || typeof params.file.filename !== 'string' || params.file.filename === '')
      throw new TypeError('create needs { name, questions } or { file: { filename, data } }.');
    const form = new FormData();
    if (params.name !== undefined) form.append('name', params.name);
    form.append('file', fileBlob(params.file.data), params.file.filename);
    return this.api.send<QuestionSet>(
      {
        method: 'POST',
        path: setsPath(workspaceId),
        form,
        accept: 'application/json',
        retryable: false,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  /** Newest first, without their questions. */
  async list(workspaceId: string, options?: RequestOptions): Promise<QuestionSetSummary[]> {
    return (await this.api.get<{ questionSets: QuestionSetSummary[] }>(setsPath(workspaceId), options))
      .questionSets;
  }

  get(questionSetId: string, options?: RequestOptions): Promise<QuestionSet> {
    return this.api.get(setPath(questionSetId), options);
  }

  delete(questionSetId: string, options?: RequestOptions): Promise<QuestionSetSummary> {
    return this.api.delete(setPath(questionSetId), options);
  }
}
