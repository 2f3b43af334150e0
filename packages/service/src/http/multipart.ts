import type { FastifyRequest } from 'fastify';
import type { UploadForm, UploadLimit, UploadPart } from '../ingestion/form.js';

/** @fastify/multipart's errors for the limits app.ts configures, by what they mean for an upload. */
const LIMITS: Record<string, UploadLimit> = {
  FST_REQ_FILE_TOO_LARGE: 'file_size',
  FST_FILES_LIMIT: 'files',
  FST_PARTS_LIMIT: 'parts',
  FST_FIELDS_LIMIT: 'parts',
};

async function* partsOf(request: FastifyRequest): AsyncIterable<UploadPart> {
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      yield { kind: 'field', name: part.fieldname, value: String(part.value) };
    } else {
      // busboy leaves the name undefined for `filename=""`, whatever the typings say.
      const filename: string | undefined = part.filename;
      yield {
        kind: 'file',
        field: part.fieldname,
        filename: filename ?? '',
        mediaType: part.mimetype || null,
        stream: part.file,
      };
    }
  }
}

/** A multipart request as the ingestion operation reads it. */
export function uploadForm(request: FastifyRequest): UploadForm {
  return {
    parts: partsOf(request),
    limitBroken(err) {
      const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
      if (typeof code !== 'string') return undefined;
      return LIMITS[code] ?? (code.startsWith('FST_') ? 'malformed' : undefined);
    },
  };
}
