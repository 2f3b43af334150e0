import type { ChildNode, Document, Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';

/**
 * A small XML tree reader over htmlparser2. It never expands entities beyond the five predefined
 * ones and never fetches anything, which is what untrusted office files need.
 */
export function parseXml(xml: string): Document {
  return parseDocument(xml, { xmlMode: true, decodeEntities: true });
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
