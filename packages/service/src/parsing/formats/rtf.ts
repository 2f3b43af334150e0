import { DocumentFailure } from '../../errors.js';
import { markdownTable } from '../markdown.js';

/** Destinations whose content is not document text (tables of fonts, colours, pictures, metadata…). */
const SKIPPED_DESTINATIONS = new Set([
  'fonttbl',
  'colortbl',
  'stylesheet',
  'info',
  'pict',
  'object',
  'header',
  'headerl',
  'headerr',
  'headerf',
  'footer',
  'footerl',
  'footerr',
  'footerf',
  'listtable',
  'listoverridetable',
  'revtbl',
  'rsidtbl',
  'generator',
  'xmlnstbl',
  'themedata',
  'colorschememapping',
  'latentstyles',
  'datastore',
  'fldinst',
  'filetbl',
  'mmathPr',
  'pgdsctbl',
]);

const MAX_DEPTH = 1000;

interface State {
  skip: boolean;
  /** Characters to drop after a \uN (its ANSI fallback). */
  uc: number;
}

/**
 * RTF to Markdown: paragraphs, line breaks and tables (rows of `\cell`s); formatting is dropped.
 * Text in the document's code page (`\ansicpg`) and Unicode escapes (`\uN`) are decoded.
 */
export function parseRtf(buf: Buffer): string {
  const src = buf.toString('latin1');
  if (!src.startsWith('{\\rtf')) throw new DocumentFailure('corrupt_document', 'The file is not RTF.');
  let decoder = new TextDecoder('windows-1252');
  const paragraphs: string[] = [];
  let para = '';
  let pendingBytes: number[] = [];
  let row: string[] = [];
  let table: string[][] = [];
  let cell = '';
  let inTable = false;
  const stack: State[] = [];
  let state: State = { skip: false, uc: 1 };
  let skipChars = 0;

  const flushBytes = () => {
    if (pendingBytes.length === 0) return;
    const text = decoder.decode(Uint8Array.from(pendingBytes));
    pendingBytes = [];
    if (inTable) cell += text;
    else para += text;
  };
  const emit = (text: string) => {
    flushBytes();
    if (skipChars > 0) {
      const dropped = Math.min(skipChars, text.length);
      skipChars -= dropped;
      text = text.slice(dropped);
    }
    if (inTable) cell += text;
    else para += text;
  };
  const endParagraph = () => {
    flushBytes();
    if (inTable) {
      cell += ' ';
      return;
    }
    const t = para.replace(/[ \t]+/g, ' ').trim();
    if (t) paragraphs.push(t);
    para = '';
  };
  const endTable = () => {
    if (table.length) paragraphs.push(markdownTable(table));
    table = [];
    inTable = false;
  };

  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '{') {
      flushBytes();
      if (stack.length >= MAX_DEPTH)
        throw new DocumentFailure('corrupt_document', 'The RTF nests too deeply.');
      stack.push(state);
      state = { ...state };
      i++;
      // `{\*\dest …}` marks a destination this reader may ignore when it does not know it.
      if (src.startsWith('\\*', i)) state.skip = true;
    } else if (ch === '}') {
      flushBytes();
      state = stack.pop() ?? state;
      i++;
    } else if (ch === '\\') {
      const next = src[i + 1];
      if (next === undefined) break;
      if (next === "'") {
        const byte = Number.parseInt(src.slice(i + 2, i + 4), 16);
        i += 4;
        if (state.skip || Number.isNaN(byte)) continue;
        if (skipChars > 0) {
          skipChars--;
          continue;
        }
        pendingBytes.push(byte);
        continue;
      }
      if (!/[a-zA-Z]/.test(next)) {
        i += 2;
        if (state.skip) continue;
        if (next === '\\' || next === '{' || next === '}') emit(next);
        else if (next === '~') emit('\u00a0');
        else if (next === '_') emit('-');
        else if (next === '\n' || next === '\r') endParagraph();
        continue;
      }
      const m = /^([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(src.slice(i + 1, i + 50));
      const word = m![1]!;
      const param = m![2] === undefined ? undefined : Number(m![2]);
      i += 1 + m![0].length;
      if (SKIPPED_DESTINATIONS.has(word)) {
        state.skip = true;
        continue;
      }
      if (word === 'ansicpg' && param !== undefined) {
        try {
          decoder = new TextDecoder(`windows-${param}`);
        } catch {
          // An unknown code page keeps the default.
        }
        continue;
      }
      if (state.skip) continue;
      switch (word) {
        case 'par':
        case 'sect':
        case 'page':
          endParagraph();
          break;
        case 'line':
          emit('\n');
          break;
        case 'tab':
          emit('\t');
          break;
        case 'uc':
          state.uc = param ?? 1;
          break;
        case 'u':
          if (param !== undefined) {
            emit(String.fromCharCode(param < 0 ? param + 65536 : param));
            skipChars = state.uc;
          }
          break;
        case 'intbl':
          if (!inTable) {
            endParagraph();
            inTable = true;
          }
          break;
        case 'cell':
          flushBytes();
          row.push(cell.replace(/\s+/g, ' ').trim());
          cell = '';
          break;
        case 'row':
          flushBytes();
          table.push(row);
          row = [];
          break;
        case 'pard':
          // A paragraph reset outside a row that just ended closes the table.
          if (inTable && row.length === 0 && cell.trim() === '') {
            inTable = false;
            if (table.length) {
              paragraphs.push(markdownTable(table));
              table = [];
            }
          }
          break;
        case 'emdash':
          emit('—');
          break;
        case 'endash':
          emit('–');
          break;
        case 'bullet':
          emit('•');
          break;
        case 'lquote':
          emit('‘');
          break;
        case 'rquote':
          emit('’');
          break;
        case 'ldblquote':
          emit('“');
          break;
        case 'rdblquote':
          emit('”');
          break;
        default:
          break;
      }
    } else if (ch === '\r' || ch === '\n') {
      i++;
    } else {
      let j = i;
      while (j < src.length && !'{}\\\r\n'.includes(src[j]!)) j++;
      if (!state.skip) {
        flushBytes();
        emit(src.slice(i, j));
      }
      i = j;
    }
  }
  flushBytes();
  if (inTable) endTable();
  endParagraph();
  return paragraphs.join('\n\n');
}
