import { Lexer, type MarkedToken, type Token, type Tokens } from 'marked';
import { createElement, Fragment, type ReactNode, useEffect, useRef, useState } from 'react';
import { MARK_CHARS } from '../lib/marks.js';

/**
 * Extracted text, passages and quotes are Markdown (headings, lists, tables, code). marked parses it
 * into tokens; this renders the tokens as React elements, never as HTML strings: raw HTML in the text
 * is shown as the characters it is, links keep their text but get no target (the parsers drop link
 * targets anyway, and a document must not be able to send the console elsewhere), images show their
 * description. Nothing the text says can become markup, a script or a URL.
 */

export interface MarkdownOptions {
  /** Renders a run of text (entities decoded): highlighting, marks, citation links. Default: as is. */
  text?: (text: string) => ReactNode;
  /** The heading level a Markdown `#` becomes; without one, headings are bold paragraphs (in snippets). */
  headingLevel?: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** The character references Markdown text may still hold (the parsers decode most before). */
function decodeEntities(s: string): string {
  return s.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(\w+));/g, (whole, dec, hex, name) => {
    if (name) return ENTITIES[name] ?? whole;
    const code = dec ? Number(dec) : Number.parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : whole;
  });
}

/** A table's name: "Table: Setting, Default, Meaning", its columns cut short when there are many. */
export function tableLabel(columns: string[]): string {
  const named = columns.map((c) => c.trim()).filter(Boolean);
  if (named.length === 0) return 'Table';
  const all = named.join(', ');
  return `Table: ${all.length > 80 ? `${all.slice(0, 79).trimEnd()}…` : all}`;
}

const isComment = (html: string) => /^\s*<!--[\s\S]*-->\s*$/.test(html);

/**
 * A code block. Long lines scroll sideways inside it; when they do, it joins the Tab order (a box that
 * scrolls must be reachable by keyboard), and only then: a text with many code blocks would otherwise
 * be a long walk through them.
 */
function CodeBlock({ children }: { children: ReactNode }) {
  const box = useRef<HTMLPreElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setScrolls(el.scrollWidth > el.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return (
    <pre
      ref={box}
      className="md-code"
      // A group, not a region: a text with several code blocks would hold several landmarks of the
      // same name (axe's landmark-unique), and they are no places to jump to.
      {...(scrolls ? { tabIndex: 0, role: 'group', 'aria-label': 'Code' } : {})}
    >
      <code>{children}</code>
    </pre>
  );
}

class Renderer {
  private n = 0;
  /** The level of the last heading rendered: the next one goes at most one deeper, never skipping. */
  private lastLevel: number;
  constructor(private readonly options: MarkdownOptions) {
    this.lastLevel = (options.headingLevel ?? 1) - 1;
  }

  private key = () => this.n++;
  private text(s: string): ReactNode {
    return this.options.text ? this.options.text(s) : s;
  }
  /** What is not shown (a comment, a link definition) still passes on the mark characters it holds. */
  private hidden(raw: string): ReactNode {
    const marks = raw.match(MARK_CHARS)?.join('');
    return marks ? this.text(marks) : null;
  }

  blocks(tokens: Token[]): ReactNode[] {
    return tokens.map((t) => this.block(t as MarkedToken));
  }

  private block(t: MarkedToken): ReactNode {
    const key = this.key();
    switch (t.type) {
      case 'space':
        return null;
      case 'heading': {
        const inline = this.inline(t.tokens);
        const level = this.options.headingLevel;
        if (level === undefined)
          return (
            <p key={key} className="md-heading">
              <strong>{inline}</strong>
            </p>
          );
        // Documents skip levels (a # then a ###); screen readers' outline must not.
        const h = Math.max(level, Math.min(6, level + t.depth - 1, this.lastLevel + 1));
        this.lastLevel = h;
        return createElement(`h${h}`, { key, className: 'md-h' }, inline);
      }
      case 'paragraph':
        return <p key={key}>{this.inline(t.tokens)}</p>;
      case 'text':
        return (
          <Fragment key={key}>
            {t.tokens ? this.inline(t.tokens) : this.text(decodeEntities(t.text))}
          </Fragment>
        );
      case 'code':
        return <CodeBlock key={key}>{this.text(t.text)}</CodeBlock>;
      case 'blockquote':
        return <blockquote key={key}>{this.blocks(t.tokens)}</blockquote>;
      case 'list': {
        const items = t.items.map((item: Tokens.ListItem) => (
          <li key={this.key()}>{this.blocks(item.tokens)}</li>
        ));
        return t.ordered ? (
          <ol key={key} start={typeof t.start === 'number' && t.start !== 1 ? t.start : undefined}>
            {items}
          </ol>
        ) : (
          <ul key={key}>{items}</ul>
        );
      }
      case 'table':
        return (
          // A wide table scrolls inside its box, not the page; the box can be scrolled by keyboard too.
          // A group named by its columns, not a region landmark: several tables are not several
          // landmarks of one name (axe's landmark-unique), and a table is announced as one anyway.
          // biome-ignore lint/a11y/useSemanticElements: a fieldset is for form controls; this is a table's box.
          <div
            key={key}
            className="table-scroll"
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box must be reachable by keyboard.
            tabIndex={0}
            role="group"
            aria-label={tableLabel(t.header.map((cell) => cell.text))}
          >
            <table className="md-table">
              <thead>
                <tr>
                  {t.header.map((cell) => (
                    <th key={this.key()} style={cell.align ? { textAlign: cell.align } : undefined}>
                      {this.inline(cell.tokens)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {t.rows.map((row) => (
                  <tr key={this.key()}>
                    {row.map((cell) => (
                      <td key={this.key()} style={cell.align ? { textAlign: cell.align } : undefined}>
                        {this.inline(cell.tokens)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      case 'hr':
        return <hr key={key} />;
      case 'html':
        if (isComment(t.text)) return <Fragment key={key}>{this.hidden(t.raw)}</Fragment>;
        return <p key={key}>{this.text(t.text)}</p>;
      case 'def':
        return <Fragment key={key}>{this.hidden(t.raw)}</Fragment>;
      default:
        return <Fragment key={key}>{this.inlineOne(t)}</Fragment>;
    }
  }

  inline(tokens: Token[]): ReactNode[] {
    return tokens.map((t) => <Fragment key={this.key()}>{this.inlineOne(t as MarkedToken)}</Fragment>);
  }

  private inlineOne(t: MarkedToken): ReactNode {
    switch (t.type) {
      case 'text':
        return t.tokens ? this.inline(t.tokens) : this.text(decodeEntities(t.text));
      case 'escape':
        return this.text(t.text);
      case 'strong':
        return <strong>{this.inline(t.tokens)}</strong>;
      case 'em':
        return <em>{this.inline(t.tokens)}</em>;
      case 'del':
        return <del>{this.inline(t.tokens)}</del>;
      case 'codespan':
        return <code>{this.text(t.text)}</code>;
      case 'br':
        return <br />;
      case 'link':
        return this.inline(t.tokens);
      case 'image':
        return this.text(t.text);
      case 'checkbox':
        return this.text(t.checked ? '☑ ' : '☐ ');
      case 'html':
        return isComment(t.text) ? this.hidden(t.raw) : this.text(t.text);
      default:
        return this.text((t as Tokens.Generic).raw ?? '');
    }
  }
}

/** Markdown as React elements: blocks (paragraphs, headings, lists, tables, code). */
export function renderMarkdown(source: string, options: MarkdownOptions = {}): ReactNode {
  return new Renderer(options).blocks(Lexer.lex(source, { gfm: true }));
}

/** Only the inline parts (emphasis, code, escapes) of one sentence, such as a quote in an answer. */
export function renderInlineMarkdown(source: string, options: MarkdownOptions = {}): ReactNode {
  return new Renderer(options).inline(Lexer.lexInline(source, { gfm: true }));
}
