import { detectFormat, type Packed, packedFormat } from './detect.js';

/**
 * What the service can read, as GET /v1/formats lists it and refusals name it (docs/formats.md has
 * the detail). `full`: read only by a worker with WORKER_PROFILE=full (OCR, LibreOffice); in the
 * default profile images end as `needs_ocr` and legacy Office files fail, so uploads accept both: the
 * server does not know which workers will take them.
 */
export const SUPPORTED_FORMATS: readonly {
  name: string;
  extensions: string[];
  mediaTypes: string[];
  profile: 'default' | 'full';
}[] = [
  { name: 'PDF', extensions: ['pdf'], mediaTypes: ['application/pdf'], profile: 'default' },
  {
    name: 'Word (.docx)',
    extensions: ['docx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    profile: 'default',
  },
  {
    name: 'PowerPoint (.pptx)',
    extensions: ['pptx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    profile: 'default',
  },
  {
    name: 'Excel (.xlsx)',
    extensions: ['xlsx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    profile: 'default',
  },
  {
    name: 'OpenDocument (.odt, .ods, .odp)',
    extensions: ['odt', 'ods', 'odp'],
    mediaTypes: [
      'application/vnd.oasis.opendocument.text',
      'application/vnd.oasis.opendocument.spreadsheet',
      'application/vnd.oasis.opendocument.presentation',
    ],
    profile: 'default',
  },
  { name: 'RTF', extensions: ['rtf'], mediaTypes: ['application/rtf'], profile: 'default' },
  { name: 'HTML', extensions: ['html', 'htm'], mediaTypes: ['text/html'], profile: 'default' },
  { name: 'Markdown', extensions: ['md', 'markdown'], mediaTypes: ['text/markdown'], profile: 'default' },
  { name: 'plain text', extensions: ['txt'], mediaTypes: ['text/plain'], profile: 'default' },
  {
    name: 'CSV and TSV',
    extensions: ['csv', 'tsv'],
    mediaTypes: ['text/csv', 'text/tab-separated-values'],
    profile: 'default',
  },
  { name: 'JSON', extensions: ['json'], mediaTypes: ['application/json'], profile: 'default' },
  { name: 'e-mail (.eml)', extensions: ['eml'], mediaTypes: ['message/rfc822'], profile: 'default' },
  { name: 'EPUB', extensions: ['epub'], mediaTypes: ['application/epub+zip'], profile: 'default' },
  {
    name: 'images (PNG, JPEG, GIF, TIFF, BMP, WebP)',
    extensions: ['png', 'jpg', 'jpeg', 'gif', 'tif', 'tiff', 'bmp', 'webp'],
    mediaTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/tiff', 'image/bmp', 'image/webp'],
    profile: 'full',
  },
  {
    name: 'legacy Office (.doc, .xls, .ppt)',
    extensions: ['doc', 'xls', 'ppt'],
    mediaTypes: ['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'],
    profile: 'full',
  },
];

/** What checkUpload refuses, in words (GET /v1/formats). */
export const REFUSED_ON_UPLOAD = [
  'empty files',
  'zip archives (upload the files inside them) and zip files that cannot be read',
  'compressed files and other archives (gzip, bzip2, xz, zstd, 7z, rar, tar)',
  'binary content of no format listed here',
] as const;

/** The formats in words, for a refusal's message. */
export function supportedFormatsText(): string {
  const named = (profile: 'default' | 'full') =>
    SUPPORTED_FORMATS.filter((f) => f.profile === profile).map((f) => f.name);
  return `${named('default').join(', ')}; with the full worker profile also ${named('full').join(' and ')}`;
}

/** The bytes detection looks at: the first MiB decides text against binary (detect.ts). */
const HEAD_BYTES = 1024 * 1024;
/**
 * A zip's central directory, which names its parts, ends its file; the end record sits in the last
 * 64 KiB + 22 bytes. A MiB more holds the directory of any ordinary office document.
 */
const TAIL_BYTES = 1024 * 1024 + 65_557;

/** The start and the end of a file, as it streams past (see sampleStream). */
export interface FileSample {
  head: Buffer;
  /** The last bytes, ending where the file ends; the whole file when it is small. */
  tail: Buffer;
  size: number;
}

/** Keeps the first and last bytes of a file as it streams past, for checkUpload. */
export class Sampler {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private size = 0;

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.headBytes < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    // Folded into one buffer of the last bytes once twice that much has come: each byte is copied
    // about once, whatever the size of the chunks, and at most about 2 MiB are held.
    if (this.tailBytes >= 2 * TAIL_BYTES) {
      const all = Buffer.concat(this.tail);
      this.tail = [Buffer.from(all.subarray(all.length - TAIL_BYTES))];
      this.tailBytes = TAIL_BYTES;
    }
  }

  sample(): FileSample {
    const tail = Buffer.concat(this.tail);
    return {
      head: Buffer.concat(this.head),
      tail: tail.subarray(Math.max(0, tail.length - TAIL_BYTES)),
      size: this.size,
    };
  }
}

export type UploadCheck =
  | { ok: true }
  /** `code`: what the document would have failed with in its run. */
  | { ok: false; code: 'empty_document' | 'unsupported_media_type'; reason: string };

const OK: UploadCheck = { ok: true };

/**
 * Whether a worker of any profile can read a file, from its first and last bytes: refuses what
 * every profile refuses (nothing in it, a zip archive that is no document, a zip that cannot be read,
 * binary content of no known format) and accepts the rest, whatever its name says. When the sample
 * cannot tell (a zip whose directory starts before its tail), the worker decides. The web console
 * checks the same in the browser (packages/console/src/lib/formats.ts; a test holds the two together).
 */
export function checkUpload(
  sample: FileSample,
  filename: string,
  declaredMediaType: string | null,
): UploadCheck {
  const { head, tail, size } = sample;
  if (size === 0) return { ok: false, code: 'empty_document', reason: 'the file is empty' };
  if (size > tail.length && isZip(head) && !head.subarray(0, 1024).includes('%PDF-')) return zipCheck(sample);
  // The whole file when it fits in the tail; else its head, as detection reads no further.
  const { format } = detectFormat(size <= tail.length ? tail : head, filename, declaredMediaType);
  if (format === 'zip') return refuse(ARCHIVE);
  // Detection calls a zip it cannot read binary.
  if (format === 'binary') {
    const packed = packedFormat(head);
    return refuse(
      isZip(head)
        ? DAMAGED_ZIP
        : packed
          ? packedReason(packed)
          : 'binary content of no format DocSlurp reads',
    );
  }
  return OK;
}

const ARCHIVE = 'a zip archive: DocSlurp does not unpack archives, upload the files inside it';

/** A compressed file or an archive, named as a zip archive is (the console says the same). */
export function packedReason({ kind, name }: Packed): string {
  return kind === 'archive'
    ? `a ${name} archive: DocSlurp does not unpack archives, upload the files inside it`
    : `a ${name}-compressed file: DocSlurp does not decompress files, upload or sync it uncompressed`;
}
const DAMAGED_ZIP = 'a damaged zip file that cannot be read';

function refuse(reason: string): UploadCheck {
  return { ok: false, code: 'unsupported_media_type', reason };
}

/** The signatures detection takes for a zip: a local file header, or the end record of an empty zip. */
function isZip(head: Buffer): boolean {
  if (head.length < 4) return false;
  const signature = head.readUInt32LE(0);
  return signature === 0x04034b50 || signature === 0x06054b50;
}

/**
 * A large zip, judged by its tail: a directory naming an office part or a stored `mimetype` entry of
 * OpenDocument or EPUB (at the start of the file, where those formats put it) is a document; a
 * directory naming neither is an archive; no end record at all is a zip that cannot be read.
 */
function zipCheck({ head, tail, size }: FileSample): UploadCheck {
  const base = size - tail.length;
  let eocd = -1;
  for (let i = tail.length - 22; i >= Math.max(0, tail.length - 65_557); i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return refuse(DAMAGED_ZIP);
  const count = tail.readUInt16LE(eocd + 10);
  let at = tail.readUInt32LE(eocd + 16) - base;
  if (at < 0) return OK;
  for (let n = 0; n < count; n++) {
    if (at + 46 > tail.length || tail.readUInt32LE(at) !== 0x02014b50) return refuse(DAMAGED_ZIP);
    const method = tail.readUInt16LE(at + 10);
    const stored = tail.readUInt32LE(at + 20);
    const nameLength = tail.readUInt16LE(at + 28);
    const local = tail.readUInt32LE(at + 42);
    const name = tail.toString('utf8', at + 46, at + 46 + nameLength);
    if (ZIP_DOCUMENT_PARTS.has(name)) return OK;
    if (name === 'mimetype' && method === 0 && local + 30 <= head.length) {
      const start = local + 30 + head.readUInt16LE(local + 26) + head.readUInt16LE(local + 28);
      if (ZIP_DOCUMENT_MIMETYPES.has(head.toString('ascii', start, start + stored).trim())) return OK;
    }
    at += 46 + nameLength + tail.readUInt16LE(at + 30) + tail.readUInt16LE(at + 32);
  }
  return refuse(ARCHIVE);
}

const ZIP_DOCUMENT_PARTS = new Set(['word/document.xml', 'ppt/presentation.xml', 'xl/workbook.xml']);
const ZIP_DOCUMENT_MIMETYPES = new Set([
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/epub+zip',
]);
