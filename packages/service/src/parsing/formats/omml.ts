import type { ChildNode, Element } from 'domhandler';
import { attr, childElements, firstChild, isElement, localName, parseXml, textContent } from '../xml.js';

/**
 * Office Math (OMML) to LaTeX, so equations in Word files become searchable text in the form people
 * type them. Covers the common structures (fractions, scripts, radicals, n-ary operators, delimiters,
 * functions); anything else is rendered as the text of its parts.
 */

const SYMBOLS: Record<string, string> = {
  π: '\\pi',
  α: '\\alpha',
  β: '\\beta',
  γ: '\\gamma',
  δ: '\\delta',
  Δ: '\\Delta',
  ε: '\\epsilon',
  θ: '\\theta',
  λ: '\\lambda',
  μ: '\\mu',
  σ: '\\sigma',
  Σ: '\\Sigma',
  φ: '\\phi',
  ω: '\\omega',
  Ω: '\\Omega',
  '∞': '\\infty',
  '×': '\\times',
  '÷': '\\div',
  '±': '\\pm',
  '≤': '\\leq',
  '≥': '\\geq',
  '≠': '\\neq',
  '≈': '\\approx',
  '→': '\\rightarrow',
  '∂': '\\partial',
  '∇': '\\nabla',
  '·': '\\cdot',
};

const NARY: Record<string, string> = {
  '∑': '\\sum',
  '∏': '\\prod',
  '∫': '\\int',
  '∬': '\\iint',
  '∮': '\\oint',
};
const FUNCTIONS = new Set([
  'sin',
  'cos',
  'tan',
  'log',
  'ln',
  'exp',
  'lim',
  'max',
  'min',
  'sec',
  'csc',
  'cot',
]);

function symbols(text: string): string {
  return [...text].map((ch) => (SYMBOLS[ch] ? `${SYMBOLS[ch]} ` : ch)).join('');
}

function part(node: Element | undefined, name: string): string {
  const child = node && firstChild(node, name);
  return child ? render(child) : '';
}

function property(node: Element, prName: string, key: string): string | undefined {
  const pr = firstChild(node, prName);
  const el = pr && firstChild(pr, key);
  return el ? attr(el, 'val') : undefined;
}

function render(node: Element): string {
  return (node.children as ChildNode[])
    .filter(isElement)
    .map((c) => renderOne(c))
    .join('');
}

function renderOne(el: Element): string {
  switch (localName(el)) {
    case 'r':
      return symbols(
        childElements(el, 't')
          .map((t) => textContent(t))
          .join(''),
      );
    case 'f':
      return `\\frac{${part(el, 'num')}}{${part(el, 'den')}}`;
    case 'sSup':
      return `${part(el, 'e')}^{${part(el, 'sup')}}`;
    case 'sSub':
      return `${part(el, 'e')}_{${part(el, 'sub')}}`;
    case 'sSubSup':
      return `${part(el, 'e')}_{${part(el, 'sub')}}^{${part(el, 'sup')}}`;
    case 'rad': {
      const degree = part(el, 'deg');
      return `\\sqrt${degree ? `[${degree}]` : ''}{${part(el, 'e')}}`;
    }
    case 'nary': {
      const chr = property(el, 'naryPr', 'chr') ?? '∫';
      const sub = part(el, 'sub');
      const sup = part(el, 'sup');
      return `${NARY[chr] ?? chr}${sub ? `_{${sub}}` : ''}${sup ? `^{${sup}}` : ''}${part(el, 'e')}`;
    }
    case 'd': {
      const open = property(el, 'dPr', 'begChr') ?? '(';
      const close = property(el, 'dPr', 'endChr') ?? ')';
      const inner = childElements(el, 'e').map(render).join(',');
      return `\\left${open}${inner}\\right${close}`;
    }
    case 'func': {
      const name = part(el, 'fName');
      return `${FUNCTIONS.has(name) ? `\\${name}` : name}${part(el, 'e')}`;
    }
    case 'rPr':
    case 'ctrlPr':
    case 'fPr':
    case 'sSupPr':
    case 'sSubPr':
    case 'radPr':
    case 'naryPr':
    case 'dPr':
    case 'funcPr':
      return '';
    default:
      return render(el);
  }
}

export function ommlToLatex(xml: Element): string {
  return render(xml).replace(/\s+/g, ' ').trim();
}

/** Replaces each equation in a WordprocessingML document with a text run holding its LaTeX. */
export function equationsAsText(documentXml: string): string {
  if (!documentXml.includes('oMath')) return documentXml;
  const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const run = (text: string) => `<w:r><w:t xml:space="preserve">${xmlText(text)}</w:t></w:r>`;
  // Display equations first (a paragraph of their own), then the inline ones left.
  return documentXml
    .replace(/<m:oMathPara\b[\s\S]*?<\/m:oMathPara>/g, (xml) => run(` $$${ommlToLatex(root(xml))}$$ `))
    .replace(/<m:oMath\b[\s\S]*?<\/m:oMath>/g, (xml) => run(` $${ommlToLatex(root(xml))}$ `));
}

function root(xml: string): Element {
  const doc = parseXml(xml);
  return (doc.children as ChildNode[]).find(isElement) ?? (doc as unknown as Element);
}
