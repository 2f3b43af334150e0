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

  /** Token ids with [CLS] and [SEP], truncated to `maxTokens` in all. */
  encode(text: string, maxTokens: number): number[] {
    const ids = [this.clsId];
    for (const word of this.preTokenize(text)) {
      this.wordPieces(word, ids);
      if (ids.length >= maxTokens - 1) break;
    }
    ids.length = Math.min(ids.length, maxTokens - 1);
    ids.push(this.sepId);
    return ids;
  }

  /** Encodes texts and pads them (id 0, mask 0) to the longest, as the encoder's int64 inputs. */
  encodeBatch(texts: string[], maxTokens: number): EncodedBatch {
    const encoded = texts.map((t) => this.encode(t, maxTokens));
    const length = Math.max(...encoded.map((e) => e.length));
    const ids = new BigInt64Array(texts.length * length);
    const attentionMask = new BigInt64Array(texts.length * length);
    encoded.forEach((seq, row) => {
      seq.forEach((id, col) => {
        ids[row * length + col] = BigInt(id);
        attentionMask[row * length + col] = 1n;
      });
    });
    return {
      ids,
      attentionMask,
      typeIds: new BigInt64Array(texts.length * length),
      batch: texts.length,
      length,
    };
  }
}
