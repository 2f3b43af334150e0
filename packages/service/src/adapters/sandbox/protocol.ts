import type { ParsedDocument } from '../../domain/ports.js';
import type { DocumentFailureCode } from '../../errors.js';

/** What the worker asks of the sandboxed parser process (sent as JSON on its standard input). */
export interface ParseRequest {
  /** Where the input is inside the sandbox. */
  inputPath: string;
  filename: string;
  declaredMediaType: string | null;
  profile: 'default' | 'full';
  maxOutputBytes: number;
  maxUnpackedBytes: number;
}

/** The one JSON line the parser process writes on its standard output. */
export type ParseResponse =
  | { ok: true; document: ParsedDocument }
  | { ok: false; code: DocumentFailureCode; message: string };

/** Why a sandboxed parser process died; each becomes the failure code of that one document. */
export const SANDBOX_FAILURES = {
  timeout: 'parser_timeout',
  memory: 'parser_out_of_memory',
  output: 'parser_output_too_large',
  crash: 'parser_crashed',
} as const satisfies Record<string, DocumentFailureCode>;
