import type { Chunk } from '../domain/types.js';
import { ENGLISH, type Language } from '../text/language.js';
import type { Span } from '../text/sentences.js';

export interface ChunkingOptions {
  /** Size a chunk grows to before the next block starts a new one (about 500 tokens). */
  targetChars: number;
  /** No chunk is longer than this; longer blocks are split at sentences, then at spaces. */
  maxChars: number;
  /** Tail of the previous chunk (whole sentences) repeated at the start of the next one. */
  overlapChars: number;
  /** A heading starts a new chunk once the current one holds at least this much. */
  minChars: number;
}

/**
 * About 500 tokens a chunk. 1,400 characters (350 tokens) split an answer from the sentence that leads
 * to it too often: on bench:manual's tune questions a passage of 2,000 held the answer for 0.78 of them
 * against 0.73 (docs/decisions/0009). Peers chunk larger still (OpenAI file search: 800 tokens).
 */
export const DEFAULT_CHUNKING: ChunkingOptions = {
  targetChars: 2000,
  maxChars: 2800,
  overlapChars: 200,
  minChars: 200,
};

/**
 * Chinese and Japanese say in one character what English says in five or six: the same budget of
 * words is about a third of the characters.
 */
export const CJK_CHUNKING: ChunkingOptions = {
  targetChars: 700,
  maxChars: 1000,
  overlapChars: 80,
  minChars: 80,
};

/** The chunk sizes for a document's language. */
export function chunkingFor(language: Language): ChunkingOptions {
  return language.code === 'ja' || language.code === 'zh' ? CJK_CHUNKING : DEFAULT_CHUNKING;
}

type BlockKind = 'heading' | 'paragraph' | 'table' | 'code';

interface Block {
  start: number;
  end: number;
  kind: BlockKind;
  page: number | null;
  level: number;
  title: string;
}

const PAGE_MARKER = /^<!-- page (\d+) -->$/;
/** `# Title`: one to six #, whitespace, a title; its level and title (trimmed), else undefined. */
function headingOf(line: string): { level: number; title: string } | undefined {
  const m = /^(#{1,6})\s/.exec(line);
  if (!m) return undefined;
  const title = line.slice(m[1]!.length).trim();
  return title ? { level: m[1]!.length, title } : undefined;
}

/** Splits Markdown into blocks with exact offsets; page markers and blank lines are boundaries. */
export function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  let page: number | null = null;
  let open: { start: number; end: number; kind: BlockKind } | undefined;
  let inFence = false;
  const close = () => {
    if (open) blocks.push({ ...open, page, level: 0, title: '' });
    open = undefined;
  };
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl === -1 ? text.length : nl;
    const line = text.slice(pos, lineEnd);
    const trimmed = line.trim();
    const contentStart = pos + (line.length - line.trimStart().length);
    const contentEnd = pos + line.trimEnd().length;
    if (inFence) {
      if (trimmed) open!.end = contentEnd;
      if (/^(```|~~~)/.test(trimmed)) {
        inFence = false;
        close();
      }
    } else if (PAGE_MARKER.test(trimmed)) {
      close();
      page = Number(PAGE_MARKER.exec(trimmed)![1]);
    } else if (trimmed === '') {
      close();
    } else if (/^(```|~~~)/.test(trimmed)) {
      close();
      open = { start: contentStart, end: contentEnd, kind: 'code' };
      inFence = true;
    } else if (headingOf(trimmed)) {
      close();
      const { level, title } = headingOf(trimmed)!;
      blocks.push({ start: contentStart, end: contentEnd, kind: 'heading', page, level, title });
    } else {
      const kind: BlockKind = trimmed.startsWith('|') ? 'table' : 'paragraph';
      if (open && open.kind !== kind) close();
      if (open) open.end = contentEnd;
      else open = { start: contentStart, end: contentEnd, kind };
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  close();
  return blocks;
}

/** Cuts an over-long block into pieces of at most `max` characters at sentence, line or word boundaries. */
function splitLong(text: string, block: Block, max: number, language: Language): Block[] {
  if (block.end - block.start <= max) return [block];
  const units: Span[] =
    block.kind === 'table' || block.kind === 'code'
      ? lineSpans(text, block.start, block.end)
      : language.sentenceSpans(text, block.start, block.end);
  const pieces: Block[] = [];
  let cur: Span | undefined;
  const emit = () => {
    if (cur) pieces.push({ ...block, start: cur[0], end: cur[1] });
    cur = undefined;
  };
  for (const unit of units.flatMap((u) => (u[1] - u[0] > max ? wordSpans(text, u, max) : [u]))) {
    if (cur && unit[1] - cur[0] > max) emit();
    cur = cur ? [cur[0], unit[1]] : unit;
  }
  emit();
  return pieces;
}

function lineSpans(text: string, start: number, end: number): Span[] {
  const spans: Span[] = [];
  let s = start;
  for (let i = start; i <= end; i++) {
    if (i === end || text[i] === '\n') {
      if (text.slice(s, i).trim()) spans.push([s, i]);
      s = i + 1;
    }
  }
  return spans;
}

/** Last resort for a sentence longer than a chunk: break at whitespace, or hard at `max`. */
function wordSpans(text: string, [start, end]: Span, max: number): Span[] {
  const spans: Span[] = [];
  let s = start;
  while (end - s > max) {
    // Looked for within the piece: lastIndexOf over the text searched back to its start, each piece
    // of a long run without spaces (a CJK line, one huge "word") reading everything before it.
    const space = text.slice(s, s + max + 1).lastIndexOf(' ');
    const cut = space <= 0 ? s + max : s + space;
    spans.push([s, cut]);
    s = cut;
    while (s < end && /\s/.test(text[s]!)) s++;
  }
  if (end > s) spans.push([s, end]);
  return spans;
}

/**
 * Splits a document's extracted text into chunks that follow its structure: a heading starts a new
 * chunk, chunks never cross a page, and consecutive chunks of one section overlap by a few sentences.
 * Every chunk's text is exactly `text.slice(charStart, charEnd)`.
 */
export function chunkText(
  text: string,
  documentId: string,
  language: Language = ENGLISH,
  options: ChunkingOptions = chunkingFor(language),
): Chunk[] {
  const blocks = blocksOf(text).flatMap((b) => splitLong(text, b, options.maxChars, language));
  const chunks: Chunk[] = [];
  const path: string[] = [];
  let current: { start: number; end: number; page: number | null; headingPath: string[] } | undefined;
  let lastHeading = -1;

  const emit = () => {
    if (!current) return;
    const body = text.slice(current.start, current.end);
    if (/[\p{L}\p{N}]/u.test(body)) {
      chunks.push({
        id: `${documentId}:${chunks.length}`,
        documentId,
        ordinal: chunks.length,
        text: body,
        charStart: current.start,
        charEnd: current.end,
        pageStart: current.page,
        pageEnd: current.page,
        headingPath: current.headingPath,
      });
    }
    current = undefined;
  };

  for (const [i, block] of blocks.entries()) {
    if (block.kind === 'heading') {
      path.length = Math.min(path.length, block.level - 1);
      path.push(block.title);
    }
    if (current) {
      const size = current.end - current.start;
      const grown = block.end - current.start;
      const newPage = block.page !== current.page;
      const headingBreak = block.kind === 'heading' && size >= options.minChars;
      // A heading directly after another heading stays with it.
      const stacked = block.kind === 'heading' && lastHeading === i - 1;
      if (newPage || (!stacked && (headingBreak || grown > options.targetChars))) {
        const previous = current;
        emit();
        const overlapStart =
          !newPage && block.kind !== 'heading'
            ? overlapFrom(text, previous, options.overlapChars, language)
            : undefined;
        if (overlapStart !== undefined && block.end - overlapStart <= options.maxChars) {
          current = { start: overlapStart, end: block.end, page: block.page, headingPath: [...path] };
          if (block.kind === 'heading') lastHeading = i;
          continue;
        }
      }
    }
    if (current) current.end = block.end;
    else current = { start: block.start, end: block.end, page: block.page, headingPath: [...path] };
    if (block.kind === 'heading') lastHeading = i;
  }
  emit();
  return chunks;
}

/** Start of the trailing whole sentences of `chunk` that fit in `budget` characters, if any. */
function overlapFrom(
  text: string,
  chunk: { start: number; end: number },
  budget: number,
  language: Language,
): number | undefined {
  if (budget <= 0) return undefined;
  const spans = language.sentenceSpans(text, chunk.start, chunk.end);
  let start: number | undefined;
  for (let i = spans.length - 1; i > 0; i--) {
    const s = spans[i]![0];
    if (chunk.end - s > budget) break;
    start = s;
  }
  return start;
}
