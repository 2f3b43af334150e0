import type { Format } from '@service/sdk';

/**
 * What the service can read, checked in the browser before a file is sent, so that an unsupported file
 * is refused at once instead of being sent for the service to refuse.
 *
 * The list of formats comes from the service (GET /v1/formats, shown by describeFormats); the check
 * itself mirrors the service's own at upload (packages/service/src/parsing/upload-check.ts, a unit
 * test holds the two together on samples and arbitrary bytes). Like the service, it looks at the
 * bytes, never at the name alone: a PDF called notes.txt is a PDF. It refuses what the service refuses
 * in every profile (empty files, zip archives that are no document, compressed files and other
 * archives, binary content of no known format); images and legacy Office files depend on the workers' profile, so it lets them through.
 */

/** The formats in words: those every worker reads, then those of the full profile. */
export function describeFormats(formats: readonly Pick<Format, 'name' | 'profile'>[]): string {
  const names = (profile: Format['profile']) =>
    formats.filter((f) => f.profile === profile).map((f) => f.name);
  const full = names('full');
  const always = names('default').join(', ');
  return full.length
    ? `${always}, and, where the server runs its full profile (OCR, LibreOffice), ${full.join(' and ')}`
    : always;
}

export type FileCheck = { ok: true } | { ok: false; reason: string };

const OK: FileCheck = { ok: true };

/** The part of a file the service's detection looks at (its first MiB decides text against binary). */
const HEAD_BYTES = 1024 * 1024;
/** The end-of-central-directory record of a zip sits in its last 64 KiB + 22 bytes. */
const ZIP_TAIL_BYTES = 65_557;

const bytesOf = async (blob: Blob, start: number, end: number) =>
  new Uint8Array(await blob.slice(start, end).arrayBuffer());

const startsWith = (buf: Uint8Array, sig: number[]) => sig.every((b, i) => buf[i] === b);
const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

/** Formats the service recognises by their first bytes and reads (or hands to OCR or LibreOffice). */
function knownSignature(head: Uint8Array): boolean {
  const latin = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (latin(0, 1024).includes('%PDF-')) return true;
  const signatures = [
    [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], // OLE: legacy Office
    [0x89, 0x50, 0x4e, 0x47], // PNG
    [0xff, 0xd8, 0xff], // JPEG
    [0x47, 0x49, 0x46, 0x38], // GIF
    [0x49, 0x49, 0x2a, 0x00], // TIFF
    [0x4d, 0x4d, 0x00, 0x2a], // TIFF
  ];
  if (signatures.some((s) => startsWith(head, s))) return true;
  const bmpHeaders = new Set([12, 40, 52, 56, 64, 108, 124]);
  if (head.length >= 18 && latin(0, 2) === 'BM' && u32(head, 6) === 0 && bmpHeaders.has(u32(head, 14)))
    return true;
  if (latin(0, 4) === 'RIFF' && latin(8, 12) === 'WEBP') return true;
  return latin(0, 5) === '{\\rtf';
}

const ZIP_DOCUMENT_PARTS = ['word/document.xml', 'ppt/presentation.xml', 'xl/workbook.xml'];
const ZIP_DOCUMENT_MIMETYPES = new Set([
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/epub+zip',
]);

/**
 * A zip is a document when its central directory names an Office part or its stored `mimetype` entry
 * says OpenDocument or EPUB; otherwise it is an archive (or not a readable zip), which the service
 * does not parse.
 */
async function zipKind(file: Blob): Promise<'document' | 'archive' | 'unreadable'> {
  const tailStart = Math.max(0, file.size - ZIP_TAIL_BYTES);
  const tail = await bytesOf(file, tailStart, file.size);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (u32(tail, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return 'unreadable';
  const count = u16(tail, eocd + 10);
  const dirStart = u32(tail, eocd + 16);
  const dirEnd = tailStart + eocd;
  if (dirStart > dirEnd) return 'unreadable';
  const dir = await bytesOf(file, dirStart, dirEnd);
  const decoder = new TextDecoder();
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > dir.length || u32(dir, at) !== 0x02014b50) return 'unreadable';
    const method = u16(dir, at + 10);
    const size = u32(dir, at + 20);
    const nameLength = u16(dir, at + 28);
    const name = decoder.decode(dir.subarray(at + 46, at + 46 + nameLength));
    if (ZIP_DOCUMENT_PARTS.includes(name)) return 'document';
    if (name === 'mimetype' && method === 0) {
      const local = u32(dir, at + 42);
      const header = await bytesOf(file, local, local + 30);
      if (header.length === 30 && u32(header, 0) === 0x04034b50) {
        const dataStart = local + 30 + u16(header, 26) + u16(header, 28);
        const declared = decoder.decode(await bytesOf(file, dataStart, dataStart + size)).trim();
        if (ZIP_DOCUMENT_MIMETYPES.has(declared)) return 'document';
      }
    }
    at += 46 + nameLength + u16(dir, at + 30) + u16(dir, at + 32);
  }
  return 'archive';
}

/** The service's text decoding: UTF-8 or UTF-16 by their BOM, UTF-8, else Windows-1252. */
function decodeText(buf: Uint8Array): string {
  if (startsWith(buf, [0xef, 0xbb, 0xbf])) return new TextDecoder('utf-8').decode(buf.subarray(3));
  if (startsWith(buf, [0xff, 0xfe])) return new TextDecoder('utf-16le').decode(buf.subarray(2));
  if (startsWith(buf, [0xfe, 0xff])) return new TextDecoder('utf-16be').decode(buf.subarray(2));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return new TextDecoder('windows-1252').decode(buf);
  }
}

/** Binary that happened to decode: a NUL, or more than 5 % control characters in the first 8,192. */
function looksBinary(text: string): boolean {
  const sample = text.slice(0, 8192);
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) return true;
    if ((c < 9 || (c > 13 && c < 32) || c === 0xfffd) && c !== 27) control++;
  }
  return sample.length > 0 && control / sample.length > 0.05;
}

/** Whether the service can read `file`, and if not, why (in words for the person who chose it). */
export async function checkFile(file: Blob): Promise<FileCheck> {
  if (file.size === 0) return { ok: false, reason: 'the file is empty' };
  const head = await bytesOf(file, 0, HEAD_BYTES);
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) {
    const kind = await zipKind(file);
    if (kind === 'document') return OK;
    return kind === 'archive'
      ? { ok: false, reason: 'a zip archive: DocSlurp does not unpack archives, upload the files inside it' }
      : { ok: false, reason: 'a damaged zip file that cannot be read' };
  }
  if (knownSignature(head)) return OK;
  if (!looksBinary(decodeText(head))) return OK;
  const packed = packedFormat(head);
  if (!packed) return { ok: false, reason: 'binary content of no format DocSlurp reads' };
  return {
    ok: false,
    reason:
      packed.kind === 'archive'
        ? `a ${packed.name} archive: DocSlurp does not unpack archives, upload the files inside it`
        : `a ${packed.name}-compressed file: DocSlurp does not decompress files, upload or sync it uncompressed`,
  };
}

/** Compressed files and archives other than zip, by signature, named as the service names them. */
const PACKED: [number[], { kind: 'compressed' | 'archive'; name: string }][] = [
  [[0x1f, 0x8b], { kind: 'compressed', name: 'gzip' }],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], { kind: 'compressed', name: 'xz' }],
  [[0x28, 0xb5, 0x2f, 0xfd], { kind: 'compressed', name: 'zstd' }],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], { kind: 'archive', name: '7z' }],
  [[0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], { kind: 'archive', name: 'rar' }],
];

function packedFormat(head: Uint8Array): { kind: 'compressed' | 'archive'; name: string } | undefined {
  const latin = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  for (const [sig, packed] of PACKED) if (startsWith(head, sig)) return packed;
  if (head.length >= 4 && latin(0, 3) === 'BZh' && head[3]! >= 0x31 && head[3]! <= 0x39)
    return { kind: 'compressed', name: 'bzip2' };
  if (head.length >= 263 && latin(257, 262) === 'ustar') return { kind: 'archive', name: 'tar' };
  return undefined;
}
