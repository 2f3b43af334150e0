import mammoth from 'mammoth';
import { DocumentFailure } from '../../errors.js';
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
    throw new DocumentFailure(
      'corrupt_document',
      `The DOCX file could not be read: ${(err as Error).message}`,
    );
  }
  return { text: htmlFragmentToMarkdown(html) };
}
