import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_OPTIONS, parseBytes } from '../../src/parsing/parse.js';

describe('a file no parser reads', () => {
  it('fails with one clear sentence', async () => {
    // Issue 28: "The content is not a document format this service recognises, which this service does not parse."
    const failure = await parseBytes(
      gzipSync(Buffer.from('x'.repeat(5000))),
      'notes.gz',
      null,
      DEFAULT_PARSE_OPTIONS,
    ).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'unsupported_media_type' });
    const message = (failure as Error).message;
    expect(message).toBe(
      'The content is not in a document format this service reads (it looks like binary data, such as a compressed file or a program).',
    );
    expect(message.split('. ')).toHaveLength(1);
  });
});
