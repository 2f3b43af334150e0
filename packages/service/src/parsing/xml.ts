import { type ChildNode, type Document, DomHandler, type Element } from 'domhandler';
import { Parser } from 'htmlparser2';
import { DocumentFailure } from '../errors.js';

/**
 * Most elements one inside another that a document may have. The readers of HTML and office files
 * walk their trees recursively, and a file of 100,000 nested elements overflowed the stack (issue 44,
 * finding 13). Real documents stay far below: browsers flatten HTML deeper than 512 and libxml2
 * refuses XML deeper than 256 unless told otherwise; a Word table inside a table adds three levels.
 * The converters were measured to hold at least twice this (mammoth, the first to give way, past
 * 1,100 levels of nested Word tables).
 */
export const MAX_NESTING_DEPTH = 500;

export function nestedTooDeeply(): DocumentFailure {
  return new DocumentFailure(
    'corrupt_document',
    `The document is nested too deeply: it has elements more than ${MAX_NESTING_DEPTH.toLocaleString('en')} levels inside one another.`,
  );
}

/** A tree builder that refuses to open an element deeper than MAX_NESTING_DEPTH. */
class DepthLimitedHandler extends DomHandler {
  override onopentag(name: string, attribs: Record<string, string>): void {
    // The stack holds the document itself: its length is the depth of the element being opened.
    if (this.tagStack.length > MAX_NESTING_DEPTH) throw nestedTooDeeply();
    super.onopentag(name, attribs);
  }
}

/**
 * Markup as a tree, entities decoded; a tree deeper than MAX_NESTING_DEPTH fails the document as it
 * is read (DocumentFailure), before anything walks it (htmlparser2 itself slows down with the square
 * of the depth: 10 s for 100,000 nested tags).
 */
export function parseMarkup(markup: string, xmlMode: boolean): Document {
  const options = { xmlMode, decodeEntities: true };
  const handler = new DepthLimitedHandler(undefined, options);
  new Parser(handler, options).end(markup);
  return handler.root;
}

/**
 * A small XML tree reader over htmlparser2. It never expands entities beyond the five predefined
 * ones and never fetches anything, which is what untrusted office files need.
 */
export function parseXml(xml: string): Document {
  return parseMarkup(xml, true);
}

/**
 * Fails markup that another reader will build a tree from (linkedom for HTML, mammoth for a Word
 * document) when its elements nest deeper than MAX_NESTING_DEPTH, in one pass that builds nothing.
 * linkedom builds its tree from the very events counted here (htmlparser2's); for XML that is well
 * formed, what mammoth reads, the depth is the XML's own.
 */
export function refuseDeepNesting(markup: string, xmlMode: boolean): void {
  let depth = 0;
  const parser = new Parser(
    {
      onopentag() {
        if (++depth > MAX_NESTING_DEPTH) throw nestedTooDeeply();
      },
      onclosetag() {
        depth--;
      },
    },
    { xmlMode },
  );
  parser.end(markup);
}

export function isElement(node: ChildNode): node is Element {
  return node.type === 'tag';
}

/** Local name without the namespace prefix: `a:t` → `t`. */
export function localName(el: Element): string {
  const i = el.name.indexOf(':');
  return i === -1 ? el.name : el.name.slice(i + 1);
}

export function childElements(node: Element | Document, name?: string): Element[] {
  return node.children.filter(
    (c): c is Element => isElement(c) && (name === undefined || localName(c) === name),
  );
}

export function firstChild(node: Element | Document, name: string): Element | undefined {
  return childElements(node, name)[0];
}

/** Descendants in document order with the given local name (not descending into matches). */
export function findAll(node: Element | Document, name: string): Element[] {
  const out: Element[] = [];
  const visit = (n: Element | Document) => {
    for (const c of n.children) {
      if (!isElement(c)) continue;
      if (localName(c) === name) out.push(c);
      else visit(c);
    }
  };
  visit(node);
  return out;
}

export function findFirst(node: Element | Document, name: string): Element | undefined {
  for (const c of node.children) {
    if (!isElement(c)) continue;
    if (localName(c) === name) return c;
    const inner = findFirst(c, name);
    if (inner) return inner;
  }
  return undefined;
}

/** An attribute by local name, whatever its prefix. */
export function attr(el: Element, name: string): string | undefined {
  if (el.attribs[name] !== undefined) return el.attribs[name];
  for (const [k, v] of Object.entries(el.attribs)) if (k.endsWith(`:${name}`)) return v;
  return undefined;
}

/** All text below a node. */
export function textContent(node: ChildNode | Document): string {
  if (node.type === 'text') return node.data;
  if ('children' in node) return node.children.map((c) => textContent(c)).join('');
  return '';
}

/** A relationship id (`r:id`), which must not be confused with an element's own `id`. */
export function relationshipId(el: Element): string | undefined {
  for (const [k, v] of Object.entries(el.attribs)) if (k.endsWith(':id')) return v;
  return undefined;
}
