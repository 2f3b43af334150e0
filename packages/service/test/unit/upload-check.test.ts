import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/parsing/detect.js';
import { checkUpload, Sampler } from '../../src/parsing/upload-check.js';
import { makeDocx, makeOdf, makePdf, makeZip } from '../support/fixtures.js';

/** A file as the upload sees it: streamed past the sampler in chunks. */
function check(bytes: Buffer, name = 'upload.bin', chunk = 65_536) {
  const sampler = new Sampler();
  for (let i = 0; i < bytes.length; i += chunk) sampler.add(bytes.subarray(i, i + chunk));
  return checkUpload(sampler.sample(), name, null);
}

/** What a worker of any profile does with the whole file: these formats fail in every profile. */
function workerRefuses(bytes: Buffer, name = 'upload.bin'): boolean {
  if (bytes.length === 0) return true;
  const { format } = detectFormat(bytes, name, null);
  return format === 'zip' || format === 'binary';
}

const MiB = 1024 * 1024;
const filler = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7919 + 13) % 256));

describe('checking an upload by its first and last bytes', () => {
  it('refuses an empty file, an archive, a damaged zip and binary content, saying which', () => {
    expect(check(Buffer.alloc(0))).toEqual({
      ok: false,
      code: 'empty_document',
      reason: 'the file is empty',
    });
    const reasons = [
      makeZip([{ name: 'inside.txt', data: 'hello' }]),
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]),
      filler(4096),
    ].map((b) => {
      const c = check(b);
      return c.ok ? 'ok' : `${c.code}: ${c.reason}`;
    });
    expect(reasons).toEqual([
      expect.stringMatching(/^unsupported_media_type: a zip archive/),
      expect.stringMatching(/^unsupported_media_type: a damaged zip/),
      expect.stringMatching(/^unsupported_media_type: binary content/),
    ]);
  });

  it('names a compressed file or an archive by its signature, as it names a zip archive (issue 43)', () => {
    const signed = (...sig: number[]) => Buffer.concat([Buffer.from(sig), filler(4096)]);
    const tar = Buffer.alloc(2048);
    tar.write('notes.md', 0, 'latin1');
    tar.write('ustar\u000000', 257, 'latin1');
    tar.write('# Notes', 512, 'latin1');
    const reasons = Object.fromEntries(
      (
        [
          ['notes.md.gz', gzipSync(Buffer.from('# Notes\n\nCompressed.\n'.repeat(100)))],
          ['notes.md.bz2', Buffer.concat([Buffer.from('BZh91AY&SY', 'latin1'), filler(4096)])],
          ['notes.md.xz', signed(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)],
          ['notes.md.zst', signed(0x28, 0xb5, 0x2f, 0xfd)],
          ['files.7z', signed(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)],
          ['files.rar', signed(0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00)],
          ['files.tar', tar],
        ] as const
      ).map(([name, bytes]) => {
        const c = check(bytes, name);
        return [name, c.ok ? 'ok' : `${c.code}: ${c.reason}`];
      }),
    );
    const compressed = (name: string) =>
      `unsupported_media_type: a ${name}-compressed file: DocSlurp does not decompress files, upload or sync it uncompressed`;
    const archive = (name: string) =>
      `unsupported_media_type: a ${name} archive: DocSlurp does not unpack archives, upload the files inside it`;
    expect(reasons).toEqual({
      'notes.md.gz': compressed('gzip'),
      'notes.md.bz2': compressed('bzip2'),
      'notes.md.xz': compressed('xz'),
      'notes.md.zst': compressed('zstd'),
      'files.7z': archive('7z'),
      'files.rar': archive('rar'),
      'files.tar': archive('tar'),
    });
    // Text that happens to start like a signature is text still.
    expect(check(Buffer.from('BZh9 is the name of this note.\n'), 'note.txt')).toEqual({ ok: true });
  });

  it('judges files larger than what it keeps as a worker judges the whole file', () => {
    const big = filler(3 * MiB);
    const cases: [string, Buffer][] = [
      // Office and OpenDocument files whose directory (or stored mimetype) is all it needs.
      ['report.docx', makeZip([{ name: 'media/scan.bin', data: big }, ...docxParts()])],
      [
        'notes.odt',
        makeZip([
          { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text' },
          { name: 'Pictures/p.bin', data: big },
        ]),
      ],
      [
        'photos.zip',
        makeZip([
          { name: 'a.bin', data: big },
          { name: 'b.txt', data: 'b' },
        ]),
      ],
      ['broken.zip', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), big])],
      ['scan.pdf', Buffer.concat([makePdf(['Page one.']), Buffer.alloc(3 * MiB, 0x20)])],
      ['log.txt', Buffer.from('A line of ordinary text that goes on. '.repeat(90_000))],
      ['program.exe', big],
    ];
    for (const [name, bytes] of cases) {
      expect(bytes.length, name).toBeGreaterThan(2 * MiB);
      expect(check(bytes, name).ok, name).toBe(!workerRefuses(bytes, name));
    }
  });

  it('leaves to the worker a zip whose directory starts before the bytes it kept', () => {
    const entries = Array.from({ length: 25_000 }, (_, i) => ({ name: `f/${i}.txt`, data: 'x' }));
    const many = makeZip(entries);
    expect(many.length).toBeGreaterThan(2 * MiB);
    expect(check(many).ok).toBe(true);
  });

  it('agrees with the worker on small files of every kind, and on arbitrary bytes', () => {
    const samples = [
      makePdf(['Page one.']),
      makeDocx(['# Policy', 'Text.']),
      makeOdf('text', '<text:p>Hello</text:p>'),
      makeZip([{ name: 'mimetype', data: 'application/x-other' }]),
      Buffer.from('# Title\n\nSome *Markdown*.\n'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      Buffer.from('text with a \u0000 NUL in it'),
    ];
    for (const bytes of samples) expect(check(bytes).ok).toBe(!workerRefuses(bytes));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 600 }).map((a) => Buffer.from(a)),
          fc.string({ minLength: 1, maxLength: 600, unit: 'grapheme' }).map((s) => Buffer.from(s)),
          fc
            .uint8Array({ minLength: 0, maxLength: 200 })
            .map((a) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(a)])),
        ),
        fc.integer({ min: 1, max: 700 }),
        (bytes, chunk) => {
          expect(check(bytes, 'upload.bin', chunk).ok).toBe(!workerRefuses(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps exactly the first MiB and the last 1 MiB + 64 KiB, however the bytes arrive', () => {
    const whole = filler(3 * MiB);
    // At most 20,000 pieces a file: one-byte pieces come with small files, and pieces of 160 bytes
    // and more reach every size (fast-check favours small integers, and 3 MiB one byte at a time took
    // most of the unit run).
    const sizeAndChunk = fc
      .integer({ min: 1, max: 400_000 })
      .chain((chunk) =>
        fc.tuple(fc.integer({ min: 0, max: Math.min(3 * MiB, chunk * 20_000) }), fc.constant(chunk)),
      );
    fc.assert(
      fc.property(sizeAndChunk, ([size, chunk]) => {
        const bytes = whole.subarray(0, size);
        const sampler = new Sampler();
        for (let i = 0; i < size; i += chunk) sampler.add(bytes.subarray(i, i + chunk));
        const { head, tail, size: seen } = sampler.sample();
        expect(seen).toBe(size);
        expect(head.equals(bytes.subarray(0, MiB))).toBe(true);
        expect(tail.equals(bytes.subarray(Math.max(0, size - (MiB + 65_557))))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

function docxParts() {
  const docx = makeDocx(['# Report', 'Text.']);
  // The parts of a real DOCX, taken from one: its directory names word/document.xml.
  const entries: { name: string; data: Buffer }[] = [];
  let at = 0;
  while (docx.readUInt32LE(at) === 0x04034b50) {
    const size = docx.readUInt32LE(at + 18);
    const nameLength = docx.readUInt16LE(at + 26);
    const extra = docx.readUInt16LE(at + 28);
    const name = docx.toString('utf8', at + 30, at + 30 + nameLength);
    const start = at + 30 + nameLength + extra;
    entries.push({ name, data: docx.subarray(start, start + size) });
    at = start + size;
  }
  return entries;
}
