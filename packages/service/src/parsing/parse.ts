import type { ParsedDocument } from '../domain/ports.js';
import { DocumentFailure } from '../errors.js';
import { detectFormat, type Format, packedFormat } from './detect.js';
import { delimitedToMarkdown, jsonToMarkdown, normaliseText } from './formats/plain.js';
import { joinPages, neutralisePageMarkers } from './markdown.js';

/**
 * Each document is parsed by a fresh process, so start-up time is paid per document: a format's
 * parser (and the libraries it needs, such as mammoth or linkedom) is loaded only when that format
 * arrives.
 */
const formats = {
  docx: () => import('./formats/docx.js'),
  eml: () => import('./formats/eml.js'),
  epub: () => import('./formats/epub.js'),
  html: () => import('./formats/html.js'),
  markdown: () => import('./formats/markdown.js'),
  odf: () => import('./formats/odf.js'),
  pdf: () => import('./formats/pdf.js'),
  pptx: () => import('./formats/pptx.js'),
  rtf: () => import('./formats/rtf.js'),
  sheets: () => import('./formats/sheets.js'),
  tools: () => import('./formats/tools.js'),
};

import { decodeText } from './text-decoding.js';
import { openZip, vetZip } from './zip.js';

export interface ParseOptions {
  /** `full` runs OCR on images and scanned pages and converts legacy Office files. */
  profile: 'default' | 'full';
  maxUnpackedBytes: number;
  maxOutputBytes: number;
}

export const DEFAULT_PARSE_OPTIONS: ParseOptions = {
  profile: 'default',
  maxUnpackedBytes: 1024 * 1024 * 1024,
  maxOutputBytes: 64 * 1024 * 1024,
};

/** One sentence for content no parser reads (issue 28: two half-sentences made a garbled one). */
const UNREADABLE: Partial<Record<Format, string>> = {
  zip: 'The content is a zip archive, which this service does not unpack; upload the documents inside it.',
  binary:
    'The content is not in a document format this service reads (it looks like binary data, such as a compressed file or a program).',
};

const FULL_PROFILE_HINT = 'the full worker (WORKER_PROFILE=full)';

/** Which legacy Office file an OLE compound file is, from the stream names in its directory. */
function oleKind(buf: Buffer): 'doc' | 'xls' | 'ppt' | 'encrypted' | 'other' {
  const has = (name: string) => buf.includes(Buffer.from(name, 'utf16le'));
  if (has('EncryptedPackage')) return 'encrypted';
  if (has('WordDocument')) return 'doc';
  if (has('Workbook') || has('Book')) return 'xls';
  if (has('PowerPoint Document')) return 'ppt';
  return 'other';
}

/** Turns a file's bytes into Markdown text. Throws DocumentFailure with a specific code when it cannot. */
export async function parseBytes(
  buf: Buffer,
  filename: string,
  declaredMediaType: string | null,
  options: ParseOptions = DEFAULT_PARSE_OPTIONS,
): Promise<ParsedDocument> {
  if (buf.length === 0) throw new DocumentFailure('empty_document', 'The file is empty.');
  const { format, mediaType } = detectFormat(buf, filename, declaredMediaType);
  const done = (
    text: string,
    pageCount: number | null = null,
    title: string | null = null,
  ): ParsedDocument => ({
    mediaType,
    text: (pageCount === null ? neutralisePageMarkers(normaliseText(text)) : normaliseText(text)).trim(),
    pageCount,
    title,
  });
  const paged = (pages: string[], title: string | null = null) => done(joinPages(pages), pages.length, title);
  const text = () => {
    // Decoded text takes about as many UTF-8 bytes as the file (half for UTF-16): refuse early what cannot fit.
    const utf16 = (buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff);
    if (buf.length > options.maxOutputBytes * (utf16 ? 2 : 1)) {
      throw new DocumentFailure(
        'parser_output_too_large',
        `The text is larger than the output limit of ${Math.round(options.maxOutputBytes / 1048576)} MiB.`,
      );
    }
    return decodeText(buf).text;
  };
  const zip = () => openZip(buf, options.maxUnpackedBytes);

  switch (format) {
    case 'pdf': {
      const r = await (await formats.pdf()).parsePdf(buf, { ocr: options.profile === 'full' });
      return paged(r.pages, r.title);
    }
    case 'docx':
      vetZip(buf, options.maxUnpackedBytes);
      return done((await (await formats.docx()).parseDocx(buf, options.maxUnpackedBytes)).text);
    case 'pptx': {
      const r = (await formats.pptx()).parsePptx(zip());
      return paged(r.pages, r.title);
    }
    case 'xlsx': {
      const { readXlsx, sheetsToMarkdown } = await formats.sheets();
      return done(sheetsToMarkdown(readXlsx(zip())));
    }
    case 'ods': {
      const [{ sheetsToMarkdown }, { readOds }] = await Promise.all([formats.sheets(), formats.odf()]);
      return done(sheetsToMarkdown(readOds(zip())));
    }
    case 'odt':
      return done((await formats.odf()).parseOdt(zip()));
    case 'odp':
      return paged((await formats.odf()).parseOdp(zip()));
    case 'epub': {
      const r = (await formats.epub()).parseEpub(zip());
      return done(r.text, null, r.title);
    }
    case 'rtf':
      return done((await formats.rtf()).parseRtf(buf));
    case 'html': {
      const r = (await formats.html()).parseHtml(text());
      return done(r.text, null, r.title);
    }
    case 'markdown':
      return done((await formats.markdown()).normaliseMarkdown(text()));
    case 'text':
      return done(text());
    case 'csv':
    case 'tsv':
      return done(delimitedToMarkdown(text(), format === 'csv' ? ',' : '\t'));
    case 'json':
      return done(jsonToMarkdown(text()));
    case 'eml': {
      const r = (await formats.eml()).parseEml(buf);
      return done(r.text, null, r.title);
    }
    case 'image':
      if (options.profile !== 'full') {
        throw new DocumentFailure(
          'needs_ocr',
          `The file is an image (${mediaType}); its text needs OCR, which ${FULL_PROFILE_HINT} provides.`,
        );
      }
      return done(await (await formats.tools()).ocrImage(buf));
    case 'legacy-office': {
      const kind = oleKind(buf);
      if (kind === 'encrypted') {
        throw new DocumentFailure(
          'encrypted_document',
          'The Office file is encrypted with a password; upload an unprotected copy.',
        );
      }
      if (kind === 'other') {
        throw new DocumentFailure(
          'unsupported_media_type',
          'The content is an OLE compound file that is not a Word, Excel or PowerPoint document.',
        );
      }
      if (options.profile !== 'full') {
        throw new DocumentFailure(
          'unsupported_media_type',
          `The content is a legacy Office file (.${kind}); it is converted only by ${FULL_PROFILE_HINT}. Save it as .${kind}x to have it parsed here.`,
        );
      }
      const converted = await (await formats.tools()).convertWithLibreOffice(buf, kind, `${kind}x`);
      const modern = await parseBytes(converted, `${filename}.${kind}x`, null, options);
      return {
        ...modern,
        mediaType: `application/${kind === 'doc' ? 'msword' : kind === 'xls' ? 'vnd.ms-excel' : 'vnd.ms-powerpoint'}`,
      };
    }
    default: {
      // Named when it is a compressed file or an archive, as a zip archive is (issue 43).
      const packed = format === 'binary' ? packedFormat(buf) : undefined;
      throw new DocumentFailure(
        'unsupported_media_type',
        packed?.kind === 'archive'
          ? `The content is a ${packed.name} archive, which this service does not unpack; upload the documents inside it.`
          : packed
            ? `The content is ${packed.name}-compressed, which this service does not decompress; upload or sync it uncompressed.`
            : (UNREADABLE[format] ?? `The content is ${format}, which this service does not parse.`),
      );
    }
  }
}
