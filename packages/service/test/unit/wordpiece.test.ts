import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDir } from '../../../../bench/lib/data.js';
import { WordPieceTokenizer } from '../../src/adapters/models/wordpiece.js';

const tokenizerFile = path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json');

describe('WordPieceTokenizer with the all-MiniLM-L6-v2 tokenizer.json', () => {
  it('normalises, splits punctuation and finds the longest word pieces (ids from vocab.txt)', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile);
    // [CLS] hello , world ! una ##ffa ##ble [SEP]
    expect(t.encode('Hello, world! unaffable', 512)).toEqual([
      101, 7592, 1010, 2088, 999, 14477, 20961, 3468, 102,
    ]);
    // Accents are stripped and text is lower-cased: "Café" is "cafe".
    expect(t.encode('Café', 512)).toEqual(t.encode('cafe', 512));
    expect(t.preTokenize('Hi…there (ok)')).toEqual(['hi', '…', 'there', '(', 'ok', ')']);
  });

  it('truncates to the token budget, keeping [CLS] and [SEP]', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile);
    const ids = t.encode('word '.repeat(100), 10);
    expect(ids).toHaveLength(10);
    expect(ids[0]).toBe(101);
    expect(ids.at(-1)).toBe(102);
  });

  it('pads a batch to its longest sequence with a zero mask', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile);
    const b = t.encodeBatch(['hello', 'hello world again'], 64);
    expect([b.batch, b.length]).toEqual([2, 5]);
    expect([...b.attentionMask]).toEqual([1n, 1n, 1n, 0n, 0n, 1n, 1n, 1n, 1n, 1n]);
    expect([...b.ids.slice(0, 5)]).toEqual([101n, 7592n, 102n, 0n, 0n]);
  });

  it('refuses tokenizers that are not WordPiece, with a clear message', () => {
    expect(() => WordPieceTokenizer.fromJson({ model: { type: 'BPE' } })).toThrow(/only WordPiece/);
  });
});
