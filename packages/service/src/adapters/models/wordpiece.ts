import { readFile } from 'node:fs/promises';

/** Token ids of a batch, padded to its longest sequence: the inputs of a BERT-shaped encoder. */
export interface EncodedBatch {
  ids: BigInt64Array;
  attentionMask: BigInt64Array;
  typeIds: BigInt64Array;
  batch: number;
  length: number;
}

interface TokenizerJson {
  normalizer?: {
    type?: string;
    lowercase?: boolean;
    strip_accents?: boolean | null;
    clean_text?: boolean;
    handle_chinese_chars?: boolean;
  } | null;
  model?: {
    type?: string;
    vocab?: Record<string, number>;
    unk_token?: string;
    continuing_subword_prefix?: string;
    max_input_chars_per_word?: number;
  };
}

const PUNCTUATION = /[\p{P}\p{S}]/u;
const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
const CJK =
  /[\u4E00-\u9FFF\u3400-\u4DBF\u{20000}-\u{2A6DF}\u{2A700}-\u{2B73F}\u{2B740}-\u{2B81F}\u{2B820}-\u{2CEAF}\uF900-\uFAFF\u{2F800}-\u{2FA1F}]/u;

/**
 * The BERT tokenizer described by a Hugging Face `tokenizer.json` with a WordPiece model: BERT
 * normalisation (clean text, CJK spacing, lower case, accents stripped), splitting at whitespace and
 * punctuation, then greedy longest-match word pieces, wrapped in [CLS] … [SEP].
 */
export class WordPieceTokenizer {
  private constructor(
    private readonly vocab: Map<string, number>,
    private readonly unkId: number,
    private readonly clsId: number,
    private readonly sepId: number,
    private readonly prefix: string,
    private readonly maxWordChars: number,
    private readonly lowercase: boolean,
    private readonly stripAccents: boolean,
  ) {}

  static async fromFile(file: string): Promise<WordPieceTokenizer> {
    return WordPieceTokenizer.fromJson(JSON.parse(await readFile(file, 'utf8')) as TokenizerJson, file);
  }

  static fromJson(json: TokenizerJson, source = 'tokenizer.json'): WordPieceTokenizer {
    const model = json.model;
    if (model?.type !== 'WordPiece' || !model.vocab) {
      throw new Error(
        `${source}: unsupported tokenizer model "${model?.type ?? 'none'}"; only WordPiece (BERT-style) tokenizers are supported`,
      );
    }
    const vocab = new Map(Object.entries(model.vocab));
    const id = (token: string) => {
      const v = vocab.get(token);
      if (v === undefined) throw new Error(`${source}: the vocabulary has no ${token} token`);
      return v;
    };
    const lowercase = json.normalizer?.lowercase ?? true;
    // As in the reference implementation, unset strip_accents follows lowercase.
    const stripAccents = json.normalizer?.strip_accents ?? lowercase;
    return new WordPieceTokenizer(
      vocab,
      id(model.unk_token ?? '[UNK]'),
      id('[CLS]'),
      id('[SEP]'),
      model.continuing_subword_prefix ?? '##',
      model.max_input_chars_per_word ?? 100,
      lowercase,
      stripAccents,
    );
  }

  private normalize(text: string): string {
    let out = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp === 0 || cp === 0xfffd || (/\p{C}/u.test(ch) && !/\s/.test(ch))) continue;
      if (/\s/.test(ch)) out += ' ';
      else if (CJK.test(ch)) out += ` ${ch} `;
      else out += ch;
    }
    if (this.lowercase) out = out.toLowerCase();
    if (this.stripAccents) out = out.normalize('NFD').replace(/\p{Mn}/gu, '');
    return out;
  }

  /** Words and punctuation marks, after normalisation. */
  preTokenize(text: string): string[] {
    const words: string[] = [];
    for (const chunk of this.normalize(text).split(' ')) {
      let cur = '';
      for (const ch of chunk) {
        if (ASCII_PUNCT.test(ch) || PUNCTUATION.test(ch)) {
          if (cur) words.push(cur);
          words.push(ch);
          cur = '';
        } else cur += ch;
      }
      if (cur) words.push(cur);
    }
    return words;
  }

  private wordPieces(word: string, out: number[]): void {
    const chars = [...word];
    if (chars.length > this.maxWordChars) {
      out.push(this.unkId);
      return;
    }
    const pieces: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (end > start) {
        const piece = (start > 0 ? this.prefix : '') + chars.slice(start, end).join('');
        found = this.vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) {
        out.push(this.unkId);
        return;
      }
      pieces.push(found);
      start = end;
    }
    out.push(...pieces);
  }

  /** Word-piece ids of a text without [CLS] or [SEP], at most `limit` of them. */
  private pieces(text: string, limit: number): number[] {
    const ids: number[] = [];
    for (const word of this.preTokenize(text)) {
      if (ids.length >= limit) break;
      this.wordPieces(word, ids);
    }
    ids.length = Math.min(ids.length, limit);
    return ids;
  }

  /** Token ids with [CLS] and [SEP], truncated to `maxTokens` in all. */
  encode(text: string, maxTokens: number): number[] {
    return [this.clsId, ...this.pieces(text, maxTokens - 2), this.sepId];
  }

  /**
   * A text pair as a cross-encoder reads it: [CLS] a [SEP] b [SEP], type 0 up to the first [SEP] and
   * 1 after it. Too long a pair is cut longest first: the longer text gives up tokens, so a short
   * query stays whole and a long passage keeps its beginning.
   */
  encodePair(a: string, b: string, maxTokens: number): { ids: number[]; typeIds: number[] } {
    const budget = Math.max(2, maxTokens - 3);
    const first = this.pieces(a, budget);
    const second = this.pieces(b, budget);
    const keepFirst = Math.min(first.length, Math.max(Math.ceil(budget / 2), budget - second.length));
    first.length = keepFirst;
    second.length = Math.min(second.length, budget - keepFirst);
    const ids = [this.clsId, ...first, this.sepId, ...second, this.sepId];
    const typeIds = ids.map((_, i) => (i < first.length + 2 ? 0 : 1));
    return { ids, typeIds };
  }

  /** Encodes texts and pads them (id 0, mask 0) to the longest, as the encoder's int64 inputs. */
  encodeBatch(texts: string[], maxTokens: number): EncodedBatch {
    return pad(texts.map((t) => ({ ids: this.encode(t, maxTokens) })));
  }

  /** Encodes text pairs (see `encodePair`) and pads them to the longest. */
  encodePairBatch(pairs: [string, string][], maxTokens: number): EncodedBatch {
    return pad(pairs.map(([a, b]) => this.encodePair(a, b, maxTokens)));
  }
}

function pad(encoded: { ids: number[]; typeIds?: number[] }[]): EncodedBatch {
  const length = Math.max(...encoded.map((e) => e.ids.length));
  const ids = new BigInt64Array(encoded.length * length);
  const attentionMask = new BigInt64Array(encoded.length * length);
  const typeIds = new BigInt64Array(encoded.length * length);
  encoded.forEach((seq, row) => {
    seq.ids.forEach((id, col) => {
      ids[row * length + col] = BigInt(id);
      attentionMask[row * length + col] = 1n;
      typeIds[row * length + col] = BigInt(seq.typeIds?.[col] ?? 0);
    });
  });
  return { ids, attentionMask, typeIds, batch: encoded.length, length };
}
