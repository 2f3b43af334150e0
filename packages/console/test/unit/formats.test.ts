import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../../service/src/parsing/detect.js';
import { checkUpload, Sampler, SUPPORTED_FORMATS } from '../../../service/src/parsing/upload-check.js';
import {
  makeDocx,
  makeEpub,
  makeOdf,
  makePdf,
  makePptx,
  makeXlsx,
  makeZip,
} from '../../../service/test/support/fixtures.js';
import { checkFile, describeFormats } from '../../src/lib/formats.js';

/** What the service's upload says of these bytes (it refuses the whole upload with such a file). */
function uploadRefuses(bytes: Buffer, name: string): boolean {
  const sampler = new Sampler();
  sampler.add(bytes);
  return !checkUpload(sampler.sample(), name, null).ok;
}

/** What the service does with these bytes: the formats it refuses in every profile are zip and binary. */
function serviceRefuses(bytes: Buffer, name: string): boolean {
  if (bytes.length === 0) return true; // empty_document
  const { format } = detectFormat(bytes, name, null);
  return format === 'zip' || format === 'binary';
}

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const bmp = Buffer.alloc(60);
bmp.write('BM', 0, 'latin1');
bmp.writeUInt32LE(40, 14);
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(20)]);
const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(500)]);
const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hello, UTF-16 text.\n', 'utf16le')]);
const randomBinary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
const bigText = Buffer.from('A line of ordinary text that goes on. '.repeat(40_000)); // > 1 MiB

const SAMPLES: [string, Buffer, boolean][] = [
  ['handbook.pdf', makePdf(['Page one.']), true],
  ['notes.txt', makePdf(['A PDF whose name says text.']), true],
  ['policy.docx', makeDocx(['# Policy', 'Text.']), true],
  ['deck.pptx', makePptx([{ title: 'Slide', bullets: ['Point'] }]), true],
  ['sheet.xlsx', makeXlsx([{ name: 'S', rows: [['a', 1]] }]), true],
  ['text.odt', makeOdf('text', '<text:p>Hello</text:p>'), true],
  ['calc.ods', makeOdf('spreadsheet', ''), true],
  ['show.odp', makeOdf('presentation', ''), true],
  ['book.epub', makeEpub('Book', [{ file: 'a.xhtml', html: '<p>Hi</p>' }]), true],
  ['archive.zip', makeZip([{ name: 'inside.txt', data: 'hello' }]), false],
  ['odd.zip', makeZip([{ name: 'mimetype', data: 'application/x-other' }]), false],
  ['damaged.docx', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]), false],
  ['letter.rtf', Buffer.from('{\\rtf1\\ansi Hello}'), true],
  ['page.html', Buffer.from('<!doctype html><html><body><p>Hi</p></body></html>'), true],
  ['notes.md', Buffer.from('# Title\n\nSome *Markdown*.\n'), true],
  ['data.csv', Buffer.from('a,b\n1,2\n'), true],
  ['data.json', Buffer.from('{"a": [1, 2]}'), true],
  ['mail.eml', Buffer.from('From: a@example.com\nTo: b@example.com\nSubject: Hi\n\nBody\n'), true],
  ['README', Buffer.from('Plain text without an extension.\n'), true],
  ['latin1.txt', Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x6f, 0x69, 0x72, 0x0a]), true],
  ['utf16.txt', utf16, true],
  ['big.txt', bigText, true],
  ['scan.png', png, true],
  ['photo.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]), true],
  ['anim.gif', Buffer.from('GIF89a\x01\x00'), true],
  ['scan.tif', Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), true],
  ['image.bmp', bmp, true],
  ['image.webp', webp, true],
  ['old.doc', ole, true],
  ['program.exe', randomBinary, false],
  ['notes.md.gz', gzipSync(Buffer.from('# Notes\n\nCompressed.\n'.repeat(100))), false],
  ['notes.md.bz2', Buffer.concat([Buffer.from('BZh91AY&SY', 'latin1'), randomBinary]), false],
  ['notes.md.xz', Buffer.concat([Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), randomBinary]), false],
  ['notes.md.zst', Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), randomBinary]), false],
  ['files.7z', Buffer.concat([Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]), randomBinary]), false],
  ['files.rar', Buffer.concat([Buffer.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0]), randomBinary]), false],
  ['bzh.txt', Buffer.from('BZh9 is the name of this note.\n'), true],
  ['nul.txt', Buffer.from('text with a \u0000 NUL in it'), false],
  ['empty.txt', Buffer.alloc(0), false],
];

describe('checkFile: the console refuses exactly what the service cannot read', () => {
  it.each(SAMPLES)('%s', async (name, bytes, readable) => {
    expect(serviceRefuses(bytes, name)).toBe(!readable); // the sample is what it claims to be
    const check = await checkFile(new File([new Uint8Array(bytes)], name));
    expect(check.ok).toBe(readable);
    if (!check.ok) expect(check.reason).toMatch(/\w/);
    // The service's own check at upload says the same, for the same reason.
    const sampler = new Sampler();
    sampler.add(bytes);
    const server = checkUpload(sampler.sample(), name, null);
    expect(server.ok).toBe(readable);
    if (!check.ok && !server.ok) expect(server.reason).toBe(check.reason);
  });

  it('says why: empty, an archive, a damaged zip, binary', async () => {
    const reason = async (bytes: Buffer) => {
      const c = await checkFile(new File([new Uint8Array(bytes)], 'x'));
      return c.ok ? '' : c.reason;
    };
    expect(await reason(Buffer.alloc(0))).toBe('the file is empty');
    expect(await reason(SAMPLES.find(([n]) => n === 'archive.zip')![1])).toMatch(/^a zip archive/);
    expect(await reason(SAMPLES.find(([n]) => n === 'damaged.docx')![1])).toMatch(/damaged zip/);
    expect(await reason(randomBinary)).toMatch(/^binary content/);
    expect(await reason(SAMPLES.find(([n]) => n === 'notes.md.gz')![1])).toBe(
      'a gzip-compressed file: DocSlurp does not decompress files, upload or sync it uncompressed',
    );
  });

  it('agrees with the service on arbitrary bytes and arbitrary text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 600 }).map((a) => Buffer.from(a)),
          fc.string({ minLength: 1, maxLength: 600, unit: 'grapheme' }).map((s) => Buffer.from(s)),
          fc
            .uint8Array({ minLength: 0, maxLength: 200 })
            .map((a) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(a)])),
        ),
        async (bytes) => {
          const check = await checkFile(new File([new Uint8Array(bytes)], 'upload.bin'));
          expect(check.ok).toBe(!serviceRefuses(bytes, 'upload.bin'));
          expect(check.ok).toBe(!uploadRefuses(bytes, 'upload.bin'));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the formats the refusal names', () => {
  it('are the service list (GET /v1/formats): every format, those of the full profile said apart', () => {
    const text = describeFormats(SUPPORTED_FORMATS);
    for (const f of SUPPORTED_FORMATS) expect(text).toContain(f.name);
    const [always, full] = text.split(', and, where the server runs its full profile (OCR, LibreOffice), ');
    expect(always).toContain('PDF');
    expect(full).toBe('images (PNG, JPEG, GIF, TIFF, BMP, WebP) and legacy Office (.doc, .xls, .ppt)');
  });
});
