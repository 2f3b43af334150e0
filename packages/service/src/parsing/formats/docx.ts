import mammoth from 'mammoth';
import { DocumentFailure } from '../../errors.js';
import { nestedTooDeeply, refuseDeepNesting } from '../xml.js';
import { openZip, writeStoredZip } from '../zip.js';
import { htmlFragmentToMarkdown } from './html.js';
import { equationsAsText } from './omml.js';

/**
 * A Word document as Markdown, through mammoth's HTML. Mammoth drops equations, so they are first
 * turned into text runs holding their LaTeX; the archive has already been checked against the
 * inflation budget and for entity declarations.
 */
export async function parseDocx(buf: Buffer, maxUnpackedBytes: number): Promise<{ text: string }> {
  let input = buf;
  const zip = openZip(buf, maxUnpackedBytes);
  // Mammoth reads its parts into trees and converts them recursively: a part nested too deeply is
  // refused here, with a reason, rather than by a stack overflow inside mammoth.
  for (const name of zip.names)
    if (/\.(?:xml|rels)$/i.test(name)) refuseDeepNesting(zip.text(name) ?? '', true);
  const documentXml = zip.text('word/document.xml');
  if (documentXml?.includes('oMath')) {
    input = writeStoredZip(
      zip.names.map((name) => ({
        name,
        data:
          name === 'word/document.xml'
            ? Buffer.from(equationsAsText(documentXml))
            : (zip.read(name) ?? Buffer.alloc(0)),
      })),
    );
  }
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: input }, { ignoreEmptyParagraphs: true })).value;
  } catch (err) {
    // Only nesting can exhaust mammoth's stack; a part that passed the check above may still nest
    // what mammoth converts by more frames a level than measured.
    if (err instanceof RangeError && /call stack/i.test(err.message)) throw nestedTooDeeply();
    throw new DocumentFailure(
      'corrupt_document',
      `The DOCX file could not be read: ${(err as Error).message}`,
    );
  }
  return { text: htmlFragmentToMarkdown(html) };
}
