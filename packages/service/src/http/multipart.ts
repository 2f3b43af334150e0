import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { UploadFormError, type UploadFormProblem, type UploadPart } from '../ingestion/form.js';

/** @fastify/multipart's errors for the limits app.ts configures, by what they mean for an upload. */
const LIMITS: Record<string, UploadFormProblem> = {
  FST_REQ_FILE_TOO_LARGE: 'file_size',
  FST_FILES_LIMIT: 'files',
  FST_FIELDS_LIMIT: 'fields',
};

function formError(err: unknown): UploadFormError {
  const code = (err as { code?: unknown } | undefined)?.code;
  const message = err instanceof Error ? err.message.replace(/\.$/, '') : String(err);
  return new UploadFormError((typeof code === 'string' && LIMITS[code]) || 'malformed', message);
}

function partOf(part: Multipart): UploadPart {
  if (part.type === 'field')
    return { kind: 'field', name: part.fieldname, value: String(part.value), truncated: part.valueTruncated };
  // busboy leaves the name undefined for `filename=""`, whatever the typings say.
  const filename: string | undefined = part.filename;
  return {
    kind: 'file',
    field: part.fieldname,
    filename: filename ?? '',
    mediaType: part.mimetype || null,
    stream: part.file,
  };
}

/**
 * The parts of a multipart request as the ingestion operation reads them. Whatever the parser throws
 * (its own limits, a missing boundary, a body that ends early or is not multipart at all) comes out as
 * an UploadFormError, so it is answered with a 4xx and never mistaken for a failure of the server.
 */
export async function* uploadForm(request: FastifyRequest): AsyncGenerator<UploadPart> {
  let parts: AsyncIterableIterator<Multipart>;
  try {
    parts = request.parts();
  } catch (err) {
    throw formError(err);
  }
  for (;;) {
    let next: IteratorResult<Multipart>;
    try {
      next = await parts.next();
    } catch (err) {
      throw formError(err);
    }
    if (next.done) return;
    yield partOf(next.value);
  }
}
