import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDir } from '../../../../bench/lib/data.js';
import { WordPieceTokenizer } from '../../src/adapters/models/wordpiece.js';
import { missingBenchData, skipWithout } from '../support/tools.js';

const noData = skipWithout(missingBenchData(), 'the WordPiece tokenizer (all-MiniLM-L6-v2 tokenizer.json)');

const tokenizerFile = () => path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json');

describe.skipIf(noData)('WordPieceTokenizer with the all-MiniLM-L6-v2 tokenizer.json', () => {
  it('normalises, splits punctuation and finds the longest word pieces (ids from vocab.txt)', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile());
    // [CLS] hello , world ! una ##ffa ##ble [SEP]
    expect(t.encode('Hello, world! unaffable', 512)).toEqual([
      101, 7592, 1010, 2088, 999, 14477, 20961, 3468, 102,
    ]);
    // Accents are stripped and text is lower-cased: "Café" is "cafe".
    expect(t.encode('Café', 512)).toEqual(t.encode('cafe', 512));
    expect(t.preTokenize('Hi…there (ok)')).toEqual(['hi', '…', 'there', '(', 'ok', ')']);
  });

  it('truncates to the token budget, keeping [CLS] and [SEP]', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile());
    const ids = t.encode('word '.repeat(100), 10);
    expect(ids).toHaveLength(10);
    expect(ids[0]).toBe(101);
    expect(ids.at(-1)).toBe(102);
  });

  it('pads a batch to its longest sequence with a zero mask', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile());
    const b = t.encodeBatch(['hello', 'hello world again'], 64);
    expect([b.batch, b.length]).toEqual([2, 5]);
    expect([...b.attentionMask]).toEqual([1n, 1n, 1n, 0n, 0n, 1n, 1n, 1n, 1n, 1n]);
    expect([...b.ids.slice(0, 5)]).toEqual([101n, 7592n, 102n, 0n, 0n]);
  });

  it('encodes a (query, passage) pair as a cross-encoder reads it, with token types 0 then 1', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile());
    // [CLS] hello , world ! [SEP] una ##ffa ##ble [SEP]
    expect(t.encodePair('Hello, world!', 'unaffable', 512)).toEqual({
      ids: [101, 7592, 1010, 2088, 999, 102, 14477, 20961, 3468, 102],
      typeIds: [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    });
    const b = t.encodePairBatch(
      [
        ['hello', 'world'],
        ['hello', 'hello world'],
      ],
      64,
    );
    expect([b.batch, b.length]).toEqual([2, 6]);
    expect([...b.typeIds]).toEqual([0n, 0n, 0n, 1n, 1n, 0n, 0n, 0n, 0n, 1n, 1n, 1n]);
    expect([...b.attentionMask.slice(0, 6)]).toEqual([1n, 1n, 1n, 1n, 1n, 0n]);
  });

  it('cuts a long pair longest first: a short query stays whole, two long texts share the budget', async () => {
    const t = await WordPieceTokenizer.fromFile(tokenizerFile());
    const word = 2773; // "word"
    const short = t.encodePair('hello', 'word '.repeat(100), 10);
    expect(short.ids).toEqual([101, 7592, 102, ...new Array(6).fill(word), 102]);
    const both = t.encodePair('word '.repeat(20), 'hello '.repeat(20), 11);
    expect(both.ids).toEqual([101, ...new Array(4).fill(word), 102, ...new Array(4).fill(7592), 102]);
    expect(both.typeIds).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
  });

  it('refuses tokenizers that are not WordPiece, with a clear message', () => {
    expect(() => WordPieceTokenizer.fromJson({ model: { type: 'BPE' } })).toThrow(/only WordPiece/);
  });
});
