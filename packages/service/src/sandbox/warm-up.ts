import { deflateSync } from 'node:zlib';

/**
 * A small PDF of our own that a standby parser process parses before it is given a document, so that
 * the document meets PDF code the JIT has already compiled: a fresh process pays about 0.7 s for that
 * on a first PDF (bench/results/load.md). It uses the standard fonts in several faces (pdf.js then
 * loads and converts their Type1 and TrueType programs, as it does for the fonts real documents
 * embed) and compressed page contents, like most real PDFs.
 */
export function warmUpPdf(pageCount = 6): Buffer {
  const fonts = ['Times-Roman', 'Times-Bold', 'Times-Italic', 'Courier', 'Helvetica', 'Helvetica-Bold'];
  const words =
    'documents are read in a sandbox and every passage keeps the page it came from so that answers can cite it'.split(
      ' ',
    );
  const line = (seed: number) =>
    Array.from({ length: 12 }, (_, i) => words[(seed * 7 + i * 13) % words.length]).join(' ');

  const objects: (string | { dict: string; body: Buffer })[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  fonts.forEach((font, i) => {
    objects[3 + i] = `<< /Type /Font /Subtype /Type1 /BaseFont /${font} /Encoding /WinAnsiEncoding >>`;
  });
  const fontResources = fonts.map((_, i) => `/F${i} ${3 + i} 0 R`).join(' ');
  const pageIds: number[] = [];
  for (let p = 0; p < pageCount; p++) {
    let ops = 'BT ';
    for (let l = 0; l < 40; l++) {
      // A heading line, then body lines in turning faces and indents.
      const font = l === 0 ? 1 : (l * 3 + p) % fonts.length;
      ops += `/F${font} ${l === 0 ? 16 : 10} Tf 1 0 0 1 ${56 + (l % 3) * 4} ${740 - l * 17} Tm (${line(p * 40 + l)}) Tj `;
    }
    ops += 'ET';
    const id = 3 + fonts.length + p * 2;
    pageIds.push(id);
    const body = deflateSync(Buffer.from(ops, 'latin1'));
    objects[id] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << ${fontResources} >> >> /Contents ${id + 1} 0 R >>`;
    objects[id + 1] = { dict: `<< /Length ${body.length} /Filter /FlateDecode >>`, body };
  }
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageCount} >>`;

  const parts: Buffer[] = [];
  let size = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    size += b.length;
  };
  const latin1 = (s: string) => Buffer.from(s, 'latin1');
  push(latin1('%PDF-1.4\n'));
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = size;
    const o = objects[id]!;
    if (typeof o === 'string') {
      push(latin1(`${id} 0 obj\n${o}\nendobj\n`));
    } else {
      push(latin1(`${id} 0 obj\n${o.dict}\nstream\n`));
      push(o.body);
      push(latin1('\nendstream\nendobj\n'));
    }
  }
  let trailer = `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++)
    trailer += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  trailer += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`;
  push(latin1(trailer));
  return Buffer.concat(parts);
}
