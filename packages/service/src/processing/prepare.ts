import type {
  LanguageDetector,
  Lexicons,
  PreparedText,
  PrepareRequest,
  TextPreparer,
} from '../domain/ports.js';
import { textMapOf } from '../domain/text-map.js';
import { DocumentFailure } from '../errors.js';
import { indexRowsOf } from '../search/indexing.js';
import { splitterFor } from '../text/compounds.js';
import { documentLanguage } from '../text/detection.js';
import { chunkText } from './chunker.js';

/**
 * Everything between a document's parse and the index: its language, its chunks and their index
 * rows (terms and word codes), and the map readers take windows of the text by, in passes linear in
 * the text. A text without a word fails its
 * document. The worker runs it in a thread (TextPreparer); the parse itself ran in the sandbox.
 * `lexicons` give the word list a language splits its compounds by (German), read on its first document.
 */
export async function prepareText(
  request: PrepareRequest,
  detector: LanguageDetector | undefined,
  lexicons?: Lexicons,
): Promise<PreparedText> {
  const language = await documentLanguage(request.text, request.workspaceLanguage, detector, request.told);
  const split = language.splitsCompounds
    ? splitterFor(language, await lexicons?.forLanguage(language.code))
    : undefined;
  const chunks = chunkText(request.text, request.document.id, language);
  if (chunks.length === 0) {
    if (request.mediaType === 'application/pdf')
      throw new DocumentFailure('needs_ocr', 'The PDF has no text layer (a scan?); its text needs OCR.');
    throw new DocumentFailure('empty_document', 'No text could be extracted from this file.');
  }
  return {
    language: language.code,
    rows: indexRowsOf(request.document, request, chunks, language, split),
    textMap: textMapOf(request.text),
  };
}

/**
 * Prepares texts on the caller's thread: for tests and tools whose thread serves nobody else. The
 * worker never uses it (a large text would hold its event loop for as long as it takes).
 */
export function inProcessPreparer(detector?: LanguageDetector, lexicons?: Lexicons): TextPreparer {
  return {
    detectsLanguages: detector !== undefined,
    prepare: (request) => prepareText(request, detector, lexicons),
  };
}
