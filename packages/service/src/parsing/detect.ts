import { decodeText, looksBinary } from './text-decoding.js';
import { listZipEntries, readStoredEntry } from './zip.js';

export type Format =
  | 'pdf'
  | 'docx'
  | 'pptx'
  | 'xlsx'
  | 'odt'
  | 'ods'
  | 'odp'
  | 'epub'
  | 'rtf'
  | 'html'
  | 'markdown'
  | 'text'
  | 'csv'
  | 'tsv'
  | 'json'
  | 'eml'
  | 'legacy-office'
  | 'image'
  | 'zip'
  | 'binary';

export const MEDIA_TYPES: Record<Format, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  rtf: 'application/rtf',
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  eml: 'message/rfc822',
  'legacy-office': 'application/x-ole-storage',
  image: 'image/*',
  zip: 'application/zip',
  binary: 'application/octet-stream',
};

export interface Detection {
  format: Format;
  mediaType: string;
}

function extensionOf(filename: string): string {
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(filename);
  return m ? m[1]!.toLowerCase() : '';
}

const IMAGE_SIGNATURES: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  [[0x47, 0x49, 0x46, 0x38], 'image/gif'],
  [[0x49, 0x49, 0x2a, 0x00], 'image/tiff'],
  [[0x4d, 0x4d, 0x00, 0x2a], 'image/tiff'],
];

function startsWith(buf: Buffer, sig: number[]): boolean {
  return sig.every((b, i) => buf[i] === b);
}

/** Sizes of the BMP info headers that exist (core, v1 to v5 and their variants). */
const BMP_INFO_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/**
 * "BM" alone is too weak a signature: plain text starting with "BMI" or "BMAL1" has it. A bitmap
 * also has zero reserved bytes and a known info-header size after its 14-byte file header.
 */
function isBmp(buf: Buffer): boolean {
  return (
    buf.length >= 18 &&
    startsWith(buf, [0x42, 0x4d]) &&
    buf.readUInt32LE(6) === 0 &&
    BMP_INFO_HEADER_SIZES.has(buf.readUInt32LE(14))
  );
}

function detectZip(buf: Buffer): Detection {
  const entries = listZipEntries(buf);
  if (!entries) return { format: 'binary', mediaType: MEDIA_TYPES.binary };
  const names = new Set(entries.map((e) => e.name));
  const mimetypeEntry = entries.find((e) => e.name === 'mimetype');
  const declared = mimetypeEntry ? readStoredEntry(buf, mimetypeEntry)?.toString('ascii').trim() : undefined;
  const byMime: Record<string, Format> = {
    'application/vnd.oasis.opendocument.text': 'odt',
    'application/vnd.oasis.opendocument.spreadsheet': 'ods',
    'application/vnd.oasis.opendocument.presentation': 'odp',
    'application/epub+zip': 'epub',
  };
  const fromMime = declared ? byMime[declared] : undefined;
  if (fromMime) return { format: fromMime, mediaType: MEDIA_TYPES[fromMime] };
  if (names.has('word/document.xml')) return { format: 'docx', mediaType: MEDIA_TYPES.docx };
  if (names.has('ppt/presentation.xml')) return { format: 'pptx', mediaType: MEDIA_TYPES.pptx };
  if (names.has('xl/workbook.xml')) return { format: 'xlsx', mediaType: MEDIA_TYPES.xlsx };
  return { format: 'zip', mediaType: MEDIA_TYPES.zip };
}

const EML_HEADER =
  /^(received|return-path|from|to|subject|date|message-id|mime-version|delivered-to|x-[\w-]+):/i;

function detectText(text: string, ext: string, declared: string | null): Format {
  const head = text.slice(0, 4096).trimStart();
  if (/^(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(head)) return 'html';
  if ((head.startsWith('{') || head.startsWith('[')) && text.length < 64 * 1024 * 1024) {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      // Not JSON after all: fall through to the name.
    }
  }
  const lines = head.split(/\r?\n/, 12);
  if (lines.length >= 3 && lines.slice(0, 3).every((l) => EML_HEADER.test(l) || /^\s/.test(l))) return 'eml';
  if (ext === 'html' || ext === 'htm' || declared === 'text/html')
    return /<[a-z][\s\S]*>/i.test(head) ? 'html' : 'text';
  if (ext === 'md' || ext === 'markdown' || declared === 'text/markdown') return 'markdown';
  if (ext === 'csv' || declared === 'text/csv') return 'csv';
  if (ext === 'tsv' || declared === 'text/tab-separated-values') return 'tsv';
  if (ext === 'eml' || declared === 'message/rfc822') return 'eml';
  return 'text';
}

/**
 * Compressed files and archives other than zip, by their signatures, so that a refusal can name what
 * a file is (issue 43: a `.gz` was "binary content of no format DocSlurp reads"). Only consulted for
 * content detection already calls binary: text that happens to start like one ("BZh9…") stays text.
 */
const PACKED_SIGNATURES: [number[], Packed][] = [
  [[0x1f, 0x8b], { kind: 'compressed', name: 'gzip' }],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], { kind: 'compressed', name: 'xz' }],
  [[0x28, 0xb5, 0x2f, 0xfd], { kind: 'compressed', name: 'zstd' }],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], { kind: 'archive', name: '7z' }],
  [[0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], { kind: 'archive', name: 'rar' }],
];

/** A compressor's output (one file inside) or an archive (many). */
export interface Packed {
  kind: 'compressed' | 'archive';
  name: string;
}

/** What compressed or archive format binary content is in, by its signature; undefined for none. */
export function packedFormat(buf: Buffer): Packed | undefined {
  for (const [sig, packed] of PACKED_SIGNATURES) if (startsWith(buf, sig)) return packed;
  // "BZh" and the block size, 1 to 9 (hundreds of KiB).
  if (buf.length >= 4 && buf.toString('latin1', 0, 3) === 'BZh' && buf[3]! >= 0x31 && buf[3]! <= 0x39)
    return { kind: 'compressed', name: 'bzip2' };
  // POSIX tar: "ustar" at offset 257 of its first header.
  if (buf.length >= 263 && buf.toString('latin1', 257, 262) === 'ustar')
    return { kind: 'archive', name: 'tar' };
  return undefined;
}

/**
 * Identifies a file by its bytes first (signatures, container contents), and by its name or declared
 * type only to tell apart formats that are all plain text. A lying name or MIME type changes nothing.
 */
export function detectFormat(buf: Buffer, filename: string, declaredMediaType: string | null): Detection {
  const ext = extensionOf(filename);
  const declared = declaredMediaType?.split(';')[0]?.trim().toLowerCase() ?? null;
  const head = buf.subarray(0, 1024);
  if (head.includes('%PDF-')) return { format: 'pdf', mediaType: MEDIA_TYPES.pdf };
  if (startsWith(buf, [0x50, 0x4b, 0x03, 0x04]) || startsWith(buf, [0x50, 0x4b, 0x05, 0x06]))
    return detectZip(buf);
  if (startsWith(buf, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return { format: 'legacy-office', mediaType: MEDIA_TYPES['legacy-office'] };
  }
  for (const [sig, type] of IMAGE_SIGNATURES)
    if (startsWith(buf, sig)) return { format: 'image', mediaType: type };
  if (isBmp(buf)) return { format: 'image', mediaType: 'image/bmp' };
  if (buf.subarray(0, 4).toString('latin1') === 'RIFF' && buf.subarray(8, 12).toString('latin1') === 'WEBP') {
    return { format: 'image', mediaType: 'image/webp' };
  }
  if (buf.subarray(0, 5).toString('latin1') === '{\\rtf')
    return { format: 'rtf', mediaType: MEDIA_TYPES.rtf };
  const { text } = decodeText(buf.subarray(0, 1024 * 1024));
  if (looksBinary(text)) return { format: 'binary', mediaType: MEDIA_TYPES.binary };
  const format = detectText(text, ext, declared);
  return { format, mediaType: MEDIA_TYPES[format] };
}
