import type { ParsedDocument } from '../../domain/ports.js';
import type { DocumentFailureCode } from '../../errors.js';

/** The parser's settings and limits, sent with every request. */
export interface ParseLimits {
  profile: 'default' | 'full';
  maxOutputBytes: number;
  maxUnpackedBytes: number;
}

/** What the worker asks of the sandboxed parser process (sent as JSON on its standard input). */
export interface ParseRequest extends ParseLimits {
  /** Where the input is inside the sandbox. */
  inputPath: string;
  filename: string;
  declaredMediaType: string | null;
}

/**
 * Several small documents in one request, their bytes inline (base64): one round trip, one look at the
 * process's usage and no files for the lot. They are parsed in order until the group has taken
 * `budgetMs`; the rest are left unparsed for requests of their own.
 */
export interface ParseGroupRequest extends ParseLimits {
  group: { bytes: string; filename: string; declaredMediaType: string | null }[];
  budgetMs: number;
  /** Tell each parsed document's language too (ParsedDocument.language). */
  detectLanguage?: boolean | undefined;
}

/** The one JSON line the parser process writes on its standard output for a ParseRequest. */
export type ParseResponse =
  | { ok: true; document: ParsedDocument }
  | { ok: false; code: DocumentFailureCode; message: string };

/** The answer to a ParseGroupRequest: one per document in order, null for one left unparsed. */
export interface ParseGroupResponse {
  results: (ParseResponse | null)[];
}

/** Why a sandboxed parser process died; each becomes the failure code of that one document. */
export const SANDBOX_FAILURES = {
  timeout: 'parser_timeout',
  memory: 'parser_out_of_memory',
  output: 'parser_output_too_large',
  crash: 'parser_crashed',
} as const satisfies Record<string, DocumentFailureCode>;
