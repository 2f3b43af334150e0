import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blocksOf, chunkText, DEFAULT_CHUNKING } from '../../src/processing/chunker.js';
import { ENGLISH } from '../../src/text/language.js';

const word = fc.stringMatching(/^[a-z]{1,12}$/);
const sentence = fc.array(word, { minLength: 3, maxLength: 30 }).map((ws) => `${ws.join(' ')}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 12 }).map((ss) => ss.join(' '));
const heading = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.array(word, { minLength: 1, maxLength: 5 }))
  .map(([level, ws]) => `${'#'.repeat(level)} ${ws.join(' ')}`);
const table = fc
  .array(fc.array(word, { minLength: 2, maxLength: 4 }), { minLength: 2, maxLength: 30 })
  .map((rows) => rows.map((r) => `| ${r.join(' | ')} |`).join('\n'));
const block = fc.oneof(
  { weight: 6, arbitrary: paragraph },
  { weight: 2, arbitrary: heading },
  { weight: 1, arbitrary: table },
);
const page = fc.array(block, { minLength: 1, maxLength: 15 }).map((bs) => bs.join('\n\n'));
const pagedDocument = fc
  .array(page, { minLength: 1, maxLength: 5 })
  .map((ps) => ps.map((p, i) => `<!-- page ${i + 1} -->\n\n${p}`).join('\n\n'));
const plainDocument = fc.array(block, { minLength: 1, maxLength: 40 }).map((bs) => bs.join('\n\n'));
const anyDocument = fc.oneof(pagedDocument, plainDocument);

describe('chunkText', () => {
  it('gives every chunk offsets that point at exactly its text', () => {
    fc.assert(
      fc.property(anyDocument, (text) => {
        for (const c of chunkText(text, 'doc_x')) expect(text.slice(c.charStart, c.charEnd)).toBe(c.text);
      }),
      { numRuns: 300 },
    );
  });

  it('loses no word of the text between chunks', () => {
    fc.assert(
      fc.property(anyDocument, (text) => {
        const chunks = chunkText(text, 'doc_x');
        const covered = new Uint8Array(text.length);
        for (const c of chunks) covered.fill(1, c.charStart, c.charEnd);
        for (const m of text.matchAll(/<!-- page \d+ -->/g)) covered.fill(1, m.index, m.index + m[0].length);
        // Every letter lies inside some chunk (page markers aside).
        const lost = [...text].findIndex((ch, i) => /[a-z]/.test(ch) && covered[i] === 0);
        expect(
          lost,
          lost >= 0 ? `lost text near ${JSON.stringify(text.slice(lost - 10, lost + 10))}` : '',
        ).toBe(-1);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps chunks within the maximum size and never across a page', () => {
    fc.assert(
      fc.property(pagedDocument, (text) => {
        for (const c of chunkText(text, 'doc_x')) {
          expect(c.text.length).toBeLessThanOrEqual(DEFAULT_CHUNKING.maxChars);
          expect(c.pageStart).toBe(c.pageEnd);
          expect(c.text).not.toContain('<!-- page');
          expect(c.pageStart).not.toBeNull();
        }
      }),
      { numRuns: 200 },
    );
  });

  it('records the page of each chunk and the heading path it sits under', () => {
    const text = [
      '<!-- page 1 -->',
      '# Handbook',
      'Intro text about the handbook.',
      '<!-- page 2 -->',
      '## Safety',
      'Wear gloves when handling the batteries.',
      '### Storage',
      'Store batteries below 25 degrees.',
    ].join('\n\n');
    const chunks = chunkText(text, 'doc_h', ENGLISH, { ...DEFAULT_CHUNKING, minChars: 10 });
    const storage = chunks.find((c) => c.text.includes('Store batteries'))!;
    expect(storage.pageStart).toBe(2);
    expect(storage.headingPath).toEqual(['Handbook', 'Safety', 'Storage']);
    const intro = chunks.find((c) => c.text.includes('Intro text'))!;
    expect(intro.pageStart).toBe(1);
    expect(intro.headingPath).toEqual(['Handbook']);
  });

  it('overlaps consecutive chunks of one section by whole sentences', () => {
    const sentences = Array.from({ length: 120 }, (_, i) => `Sentence number ${i} talks about topic ${i}.`);
    const text = sentences.join(' ');
    const chunks = chunkText(text, 'doc_o');
    expect(chunks.length).toBeGreaterThan(1);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!;
      const cur = chunks[i]!;
      expect(cur.charStart).toBeLessThan(prev.charEnd);
      expect(prev.charEnd - cur.charStart).toBeLessThanOrEqual(DEFAULT_CHUNKING.overlapChars);
      expect(cur.text).toMatch(/^Sentence number \d+/);
    }
  });

  it('starts a new chunk at a heading once the current one has some substance', () => {
    const body = 'Some text that is long enough to stand on its own as a chunk of this document. '.repeat(4);
    const text = `# One\n\n${body}\n\n# Two\n\n${body}`;
    const chunks = chunkText(text, 'doc_s');
    expect(chunks).toHaveLength(2);
    expect(chunks[1]!.text.startsWith('# Two')).toBe(true);
    expect(chunks[1]!.headingPath).toEqual(['Two']);
  });

  it('keeps a fenced code block with blank lines in one block', () => {
    const text = 'Before.\n\n```\nline one\n\nline two\n```\n\nAfter.';
    const kinds = blocksOf(text).map((b) => [b.kind, text.slice(b.start, b.end)]);
    expect(kinds).toEqual([
      ['paragraph', 'Before.'],
      ['code', '```\nline one\n\nline two\n```'],
      ['paragraph', 'After.'],
    ]);
  });

  it('returns no chunk for text without words', () => {
    expect(chunkText('<!-- page 1 -->\n\n---\n\n| --- |', 'doc_e')).toEqual([]);
  });
});

describe('chunkText on large texts', () => {
  // 16 MB each: each pass over the whole text per chunk (a sentence search that read on to the
  // text's end, a space looked for back to its start) made these take a minute or more, so the
  // test's timeout tells one pass from many without a clock of its own.
  const SIZE = 16 * 2 ** 20;
  const texts: [string, () => string][] = [
    ['one line of Chinese without a full stop', () => '中文文本测试没有换行的很长的一行'.repeat(SIZE / 16)],
    ['one word', () => 'a'.repeat(SIZE)],
    ['mixed scripts without a full stop', () => 'word 中文 слово كلمة 日本語 '.repeat(SIZE / 24)],
  ];
  for (const [name, make] of texts) {
    it(`chunks ${name} in one pass, in chunks no longer than the maximum`, { timeout: 15_000 }, () => {
      const text = make();
      const chunks = chunkText(text, 'doc', ENGLISH);
      expect(chunks.length).toBeGreaterThanOrEqual(
        Math.ceil(text.trimEnd().length / DEFAULT_CHUNKING.maxChars),
      );
      for (const c of chunks) expect(c.charEnd - c.charStart).toBeLessThanOrEqual(DEFAULT_CHUNKING.maxChars);
      expect(chunks.at(-1)!.charEnd).toBe(text.trimEnd().length);
    });
  }
});
