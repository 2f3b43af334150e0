import { describe, expect, it } from 'vitest';
import { readGroupAnswer } from '../../src/adapters/sandbox/answers.js';

const answer = (results: unknown[]) => Buffer.from(JSON.stringify({ results }));
const parsed = (language: unknown) => ({
  ok: true,
  document: { mediaType: 'text/plain', text: 'Hallo Welt', pageCount: null, title: null, language },
});

describe("a parser process's group answer", () => {
  it('keeps a language it told as a code and a verdict, and nothing else', () => {
    const results = readGroupAnswer(
      answer([
        parsed({ language: 'de', reliable: true, scores: [{ language: 'de', score: 1 }] }),
        parsed(null),
        parsed(undefined),
        parsed({ language: 'de; DROP TABLE documents', reliable: true }),
        parsed({ language: 'x'.repeat(100_000), reliable: true }),
        parsed({ language: 'fr', reliable: 'yes' }),
        parsed('de'),
        null,
      ]),
      8,
    );
    const languages = results!.map((r) => (r?.ok ? r.document.language : 'unparsed'));
    expect(languages).toEqual([
      { language: 'de', reliable: true },
      null,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'unparsed',
    ]);
  });
});
