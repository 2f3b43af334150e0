import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_OPTIONS, parseBytes } from '../../src/parsing/parse.js';

describe('a file no parser reads', () => {
  const failureOf = async (bytes: Buffer, name: string) => {
    const failure = await parseBytes(bytes, name, null, DEFAULT_PARSE_OPTIONS).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'unsupported_media_type' });
    return (failure as Error).message;
  };

  it('fails with one clear sentence', async () => {
    // Issue 28: "The content is not a document format this service recognises, which this service does not parse."
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    const message = await failureOf(binary, 'tool.exe');
    expect(message).toBe(
      'The content is not in a document format this service reads (it looks like binary data, such as a compressed file or a program).',
    );
    expect(message.split('. ')).toHaveLength(1);
  });

  it('names a compressed file or an archive, as it names a zip archive (issue 43)', async () => {
    expect(await failureOf(gzipSync(Buffer.from('x'.repeat(5000))), 'notes.gz')).toBe(
      'The content is gzip-compressed, which this service does not decompress; upload or sync it uncompressed.',
    );
    expect(await failureOf(bzip2Like, 'notes.bz2')).toMatch(/^The content is bzip2-compressed, /);
    expect(await failureOf(sevenZipLike, 'files.7z')).toBe(
      'The content is a 7z archive, which this service does not unpack; upload the documents inside it.',
    );
  });
});

/** The first bytes of a bzip2 stream and a 7z archive, followed by what compressed data looks like. */
const noise = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919 + 13) % 256));
const bzip2Like = Buffer.concat([Buffer.from('BZh91AY&SY', 'latin1'), noise]);
const sevenZipLike = Buffer.concat([Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]), noise]);
