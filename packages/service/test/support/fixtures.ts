// Over 400 lines: every file format the tests build byte by byte (PDF, DOCX, XLSX, PPTX, ODF, EPUB,
// zips), sharing the zip writer and CRC.
import { deflateSync } from 'node:zlib';

/**
 * Real files built by the tests themselves: a PDF with text pages, a DOCX with headings, zips.
 * They are valid files that other readers (pdfjs, mammoth, unzip) accept, not mocks of them.
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export interface ZipEntrySpec {
  name: string;
  data: string | Buffer;
  /** Store `data` as already-deflated bytes (method 8) instead of uncompressed. */
  deflated?: boolean;
  /** The uncompressed size the archive claims (a zip may lie about it). */
  declaredSize?: number;
  /** Point this entry's central record at the local data of an earlier entry (overlapping entries). */
  sharesDataOf?: number;
}

/** A zip with the given entries, in order: stored unless `deflated`, with honest sizes unless told. */
export function makeZip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data;
    const name = Buffer.from(e.name, 'utf8');
    const crc = e.deflated ? 0 : crc32(data);
    const size = e.declaredSize ?? data.length;
    const method = e.deflated ? 8 : 0;
    const shared = e.sharesDataOf === undefined ? undefined : offsets[e.sharesDataOf];
    const dataLength = shared === undefined ? data.length : (entries[e.sharesDataOf!]!.data as Buffer).length;
    if (shared === undefined) {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(0x0800, 6); // UTF-8 names
      local.writeUInt16LE(method, 8);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(data.length, 18);
      local.writeUInt32LE(size, 22);
      local.writeUInt16LE(name.length, 26);
      locals.push(local, name, data);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(dataLength, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(shared ?? offset, 42);
    centrals.push(central, name);
    offsets.push(shared ?? offset);
    if (shared === undefined) offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function pdfString(s: string): string {
  return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      if (line && line.length + word.length + 1 > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

/** A PDF whose page i shows `pages[i]` in Helvetica (Latin-1 text). */
export function makePdf(pages: string[]): Buffer {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages, 3: font; then page/content pairs.
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((text, i) => {
    const pageId = 4 + i * 2;
    const contentId = pageId + 1;
    pageIds.push(pageId);
    const lines = wrap(text, 85).map((l) => `${pdfString(l)} Tj T*`);
    const stream = `BT /F1 11 Tf 14 TL 56 740 Td ${lines.join(' ')} ET`;
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`;
    objects[contentId] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function xmlEscape(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** A DOCX whose blocks are headings (`# `, `## `) or paragraphs, styled the way Word does. */
export function makeDocx(blocks: string[]): Buffer {
  const paragraphs = blocks
    .map((b) => {
      const h = /^(#{1,3}) (.*)$/.exec(b);
      const style = h ? `<w:pPr><w:pStyle w:val="Heading${h[1]!.length}"/></w:pPr>` : '';
      return `<w:p>${style}<w:r><w:t xml:space="preserve">${xmlEscape(h ? h[2]! : b)}</w:t></w:r></w:p>`;
    })
    .join('');
  return makeDocxBody(paragraphs);
}

/** A DOCX whose `<w:body>` is the given WordprocessingML (prefix `w`), with the heading styles. */
export function makeDocxBody(body: string): Buffer {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const styles = [1, 2, 3]
    .map(
      (n) => `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/></w:style>`,
    )
    .join('');
  return makeZip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
        '</Types>',
    },
    {
      name: '_rels/.rels',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
        '</Relationships>',
    },
    {
      name: 'word/_rels/document.xml.rels',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
        '</Relationships>',
    },
    {
      name: 'word/styles.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="${W}">${styles}</w:styles>`,
    },
    {
      name: 'word/document.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
    },
  ]);
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

function rels(targets: { id: string; type: string; target: string }[]): string {
  return `${XML_HEAD}<Relationships xmlns="${PKG_REL}">${targets
    .map((t) => `<Relationship Id="${t.id}" Type="${REL}/${t.type}" Target="${t.target}"/>`)
    .join('')}</Relationships>`;
}

/** A table cell: its text, or a cell covered by the merged cell to its left (`h`) or above (`v`). */
export type SlideCell = string | { merged: 'h' | 'v' };

export interface SlideSpec {
  title: string;
  bullets?: string[];
  table?: SlideCell[][];
}

/** A PPTX with one slide per spec: a title placeholder, a bulleted text box and an optional table. */
export function makePptx(slides: SlideSpec[]): Buffer {
  const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
  const para = (text: string, bullet: boolean) =>
    `<a:p>${bullet ? '<a:pPr><a:buChar char="•"/></a:pPr>' : ''}<a:r><a:t>${xmlEscape(text)}</a:t></a:r></a:p>`;
  const slideXml = (s: SlideSpec) => {
    const title = `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody>${para(s.title, false)}</p:txBody></p:sp>`;
    const body = s.bullets
      ? `<p:sp><p:nvSpPr><p:cNvPr id="3" name="Body"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:txBody>${s.bullets.map((b) => para(b, true)).join('')}</p:txBody></p:sp>`
      : '';
    const table = s.table
      ? `<p:graphicFrame><a:graphic><a:graphicData><a:tbl>${s.table
          .map(
            (r) =>
              `<a:tr>${r
                .map((c) =>
                  typeof c === 'string'
                    ? `<a:tc><a:txBody>${para(c, false)}</a:txBody></a:tc>`
                    : `<a:tc ${c.merged}Merge="1"><a:txBody><a:p/></a:txBody></a:tc>`,
                )
                .join('')}</a:tr>`,
          )
          .join('')}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
      : '';
    return `${XML_HEAD}<p:sld xmlns:a="${A}" xmlns:p="${P}" xmlns:r="${REL}"><p:cSld><p:spTree>${title}${body}${table}</p:spTree></p:cSld></p:sld>`;
  };
  // Slides listed in reverse part order, to prove the presentation's order is the one that counts.
  const ids = slides.map((_, i) => i);
  return makeZip([
    {
      name: '[Content_Types].xml',
      data: `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    },
    {
      name: 'ppt/presentation.xml',
      data: `${XML_HEAD}<p:presentation xmlns:p="${P}" xmlns:r="${REL}"><p:sldIdLst>${ids
        .map((i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`)
        .join('')}</p:sldIdLst></p:presentation>`,
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: rels(
        ids.map((i) => ({
          id: `rId${i + 1}`,
          type: 'slide',
          target: `slides/slide${slides.length - i}.xml`,
        })),
      ),
    },
    ...ids.map((i) => ({ name: `ppt/slides/slide${slides.length - i}.xml`, data: slideXml(slides[i]!) })),
  ]);
}

/** An XLSX with the given sheets; strings go to the shared-string table, numbers stay numbers. */
export function makeXlsx(sheets: { name: string; rows: (string | number | null)[][] }[]): Buffer {
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const strings: string[] = [];
  const sheetXml = (rows: (string | number | null)[][]) =>
    `${XML_HEAD}<worksheet xmlns="${S}"><sheetData>${rows
      .map(
        (r, ri) =>
          `<row r="${ri + 1}">${r
            .map((v, ci) => {
              const ref = `${String.fromCharCode(65 + ci)}${ri + 1}`;
              if (v === null) return '';
              if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
              strings.push(v);
              return `<c r="${ref}" t="s"><v>${strings.length - 1}</v></c>`;
            })
            .join('')}</row>`,
      )
      .join('')}</sheetData></worksheet>`;
  const parts = sheets.map((s, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: sheetXml(s.rows) }));
  return makeZip([
    {
      name: '[Content_Types].xml',
      data: `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `${XML_HEAD}<workbook xmlns="${S}" xmlns:r="${REL}"><sheets>${sheets
        .map((s, i) => `<sheet name="${xmlEscape(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
        .join('')}</sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: rels(
        sheets.map((_, i) => ({
          id: `rId${i + 1}`,
          type: 'worksheet',
          target: `worksheets/sheet${i + 1}.xml`,
        })),
      ),
    },
    ...parts,
    {
      name: 'xl/sharedStrings.xml',
      data: `${XML_HEAD}<sst xmlns="${S}">${strings.map((s) => `<si><t>${xmlEscape(s)}</t></si>`).join('')}</sst>`,
    },
  ]);
}

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"';

/** An OpenDocument file (ODT, ODS or ODP) whose office:body holds `body`. */
export function makeOdf(kind: 'text' | 'spreadsheet' | 'presentation', body: string): Buffer {
  const mime = { text: 'odt', spreadsheet: 'ods', presentation: 'odp' }[kind];
  const type = { odt: 'text', ods: 'spreadsheet', odp: 'presentation' }[mime];
  return makeZip([
    { name: 'mimetype', data: `application/vnd.oasis.opendocument.${type}` },
    {
      name: 'content.xml',
      data: `${XML_HEAD}<office:document-content ${ODF_NS}><office:body><office:${kind}>${body}</office:${kind}></office:body></office:document-content>`,
    },
  ]);
}

/** An EPUB whose spine lists the chapters in the given order. */
export function makeEpub(title: string, chapters: { file: string; html: string }[]): Buffer {
  return makeZip([
    { name: 'mimetype', data: 'application/epub+zip' },
    {
      name: 'META-INF/container.xml',
      data: `${XML_HEAD}<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    },
    {
      name: 'OEBPS/content.opf',
      data: `${XML_HEAD}<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${xmlEscape(title)}</dc:title></metadata><manifest>${chapters
        .map((c, i) => `<item id="c${i}" href="${c.file}" media-type="application/xhtml+xml"/>`)
        .join(
          '',
        )}</manifest><spine>${chapters.map((_, i) => `<itemref idref="c${i}"/>`).join('')}</spine></package>`,
    },
    ...chapters.map((c) => ({
      name: `OEBPS/${c.file}`,
      data: `${XML_HEAD}<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body>${c.html}</body></html>`,
    })),
  ]);
}

/** A one-page PDF that is only a picture (a scan): an 8-bit grey image filling the page, no text layer. */
export function makeImagePdf(gray: Buffer, width: number, height: number): Buffer {
  const image = deflateSync(gray);
  const pageW = 612;
  const pageH = Math.round((612 * height) / width);
  const content = `q ${pageW} 0 0 ${pageH} 0 0 cm /Im1 Do Q`;
  const objects = [
    '',
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pageW} ${pageH}] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>`,
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  const offsets: number[] = [];
  let size = chunks[0]!.length;
  const add = (buf: Buffer) => {
    chunks.push(buf);
    size += buf.length;
  };
  for (let id = 1; id <= 3; id++) {
    offsets[id] = size;
    add(Buffer.from(`${id} 0 obj\n${objects[id]}\nendobj\n`, 'latin1'));
  }
  offsets[4] = size;
  add(
    Buffer.from(
      `4 0 obj\n<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${image.length} >>\nstream\n`,
      'latin1',
    ),
  );
  add(image);
  add(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  offsets[5] = size;
  add(
    Buffer.from(
      `5 0 obj\n<< /Length ${content.length} >>\nstream\n${content}\nendstream\nendobj\n`,
      'latin1',
    ),
  );
  const xref = size;
  let tail = 'xref\n0 6\n0000000000 65535 f \n';
  for (let id = 1; id <= 5; id++) tail += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  add(Buffer.from(tail, 'latin1'));
  return Buffer.concat(chunks);
}

/** Width, height and pixels of a binary PGM (P5) image, as pdftoppm -gray writes it. */
export function readPgm(buf: Buffer): { width: number; height: number; pixels: Buffer } {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(buf.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('not a binary PGM');
  return { width: Number(header[1]), height: Number(header[2]), pixels: buf.subarray(header[0].length) };
}

/**
 * A PDF whose text is in a non-embedded Korean CID font addressed through the predefined
 * `UniKS-UCS2-H` character map and no ToUnicode table: its text decodes only with the CMap files.
 * `text` must be in the Basic Multilingual Plane.
 */
export function makeCjkPdf(text: string): Buffer {
  const hex = Buffer.from(text, 'utf16le').swap16().toString('hex');
  const stream = `BT /F1 24 Tf 72 700 Td <${hex}> Tj ET`;
  const objects = [
    '',
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>',
    '<< /Type /Font /Subtype /Type0 /BaseFont /HYSMyeongJo-Medium /Encoding /UniKS-UCS2-H /DescendantFonts [5 0 R] >>',
    '<< /Type /Font /Subtype /CIDFontType0 /BaseFont /HYSMyeongJo-Medium /CIDSystemInfo << /Registry (Adobe) /Ordering (Korea1) /Supplement 1 >> /FontDescriptor 7 0 R >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /FontDescriptor /FontName /HYSMyeongJo-Medium /Flags 6 /FontBBox [0 -148 1001 880] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export interface PlacedText {
  x: number;
  y: number;
  size: number;
  text: string;
}

/** A PDF with text placed exactly where given (Helvetica, US Letter), one array of runs per page. */
export function makeLayoutPdf(pages: PlacedText[][]): Buffer {
  return makePdfPages(
    pages.map((runs) =>
      runs.map((r) => `BT /F1 ${r.size} Tf ${r.x} ${r.y} Td ${pdfString(r.text)} Tj ET`).join('\n'),
    ),
  );
}

function makePdfPages(streams: string[]): Buffer {
  const objects: string[] = [];
  const pageIds: number[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  streams.forEach((stream, i) => {
    const pageId = 4 + i * 2;
    pageIds.push(pageId);
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] =
      `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${streams.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
