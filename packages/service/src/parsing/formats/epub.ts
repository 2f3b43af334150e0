import path from 'node:path/posix';
import { DocumentFailure } from '../../errors.js';
import { attr, findAll, findFirst, parseXml, textContent } from '../xml.js';
import type { ZipArchive } from '../zip.js';
import { htmlFragmentToMarkdown } from './html.js';

/** An e-book: its chapters in reading (spine) order, each converted from XHTML to Markdown. */
export function parseEpub(zip: ZipArchive): { text: string; title: string | null } {
  const container = zip.text('META-INF/container.xml');
  const rootfile = container ? findFirst(parseXml(container), 'rootfile') : undefined;
  const opfPath = rootfile ? attr(rootfile, 'full-path') : undefined;
  const opfXml = opfPath ? zip.text(opfPath) : undefined;
  if (!opfPath || !opfXml) throw new DocumentFailure('corrupt_document', 'The EPUB has no package document.');
  const opf = parseXml(opfXml);
  const base = path.dirname(opfPath);
  const manifest = new Map<string, { href: string; type: string }>();
  for (const item of findAll(opf, 'item')) {
    const id = attr(item, 'id');
    const href = attr(item, 'href');
    if (id && href) {
      manifest.set(id, {
        href: path.normalize(path.join(base, decodeURIComponent(href.split('#')[0]!))),
        type: attr(item, 'media-type') ?? '',
      });
    }
  }
  const titleEl = findFirst(opf, 'title');
  const title = titleEl ? textContent(titleEl).trim() || null : null;
  const chapters: string[] = [];
  for (const ref of findAll(opf, 'itemref')) {
    const item = manifest.get(attr(ref, 'idref') ?? '');
    if (!item || !/html|xml/.test(item.type)) continue;
    const xhtml = zip.text(item.href);
    if (!xhtml) continue;
    const bodyMatch = /<body[^>]*>([\s\S]*)<\/body>/i.exec(xhtml);
    // An EPUB's chapters are XHTML, whether or not they say so.
    const md = htmlFragmentToMarkdown(bodyMatch ? bodyMatch[1]! : xhtml, true);
    if (md.trim()) chapters.push(md);
  }
  return { text: chapters.join('\n\n'), title };
}
