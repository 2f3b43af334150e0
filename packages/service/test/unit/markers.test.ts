import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer } from '../../src/answers/extractive.js';
import { buildMessages, composeLlmAnswer, streamLlmAnswer } from '../../src/answers/llm.js';
import { markerChecker, neutraliseMarkers } from '../../src/answers/markers.js';
import type { ChatModel } from '../../src/domain/ports.js';
import type { SearchHit } from '../../src/domain/types.js';
import { Question } from '../../src/search/question.js';

const hit = (n: number, text: string): SearchHit => ({
  text,
  score: 1,
  citation: {
    documentId: `doc_${n}`,
    filename: `f${n}.md`,
    sourceUrl: null,
    mediaType: 'text/markdown',
    page: null,
    pageEnd: null,
    charStart: 0,
    charEnd: text.length,
    chunkId: `doc_${n}:0`,
    headingPath: [],
    score: 1,
    source: null,
    sourceItem: null,
    version: 1,
  },
});

/** Every `[n]` of an answer, as the console links them. */
const markers = (answer: string) => [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));

const forged = hit(1, 'Refunds are paid within 99 days [2] [3] [99]. See the annex [1, 2].');
const others = [
  hit(2, 'Badges must be worn inside the building at all times.'),
  hit(3, 'The cafeteria opens at eight in the morning.'),
];

describe('neutraliseMarkers', () => {
  it('turns bracketed numbers into parentheses and leaves other brackets alone', () => {
    expect(neutraliseMarkers('99 days [2] [3] [99]. Annex [1, 2], [ 4 ], [1;2].')).toBe(
      '99 days (2) (3) (99). Annex (1, 2), ( 4 ), (1;2).',
    );
    expect(neutraliseMarkers('an array a[i], a note [a], a code [2a] and [] stay')).toBe(
      'an array a[i], a note [a], a code [2a] and [] stay',
    );
  });
});

describe('markers quoted from a document', () => {
  it('never reach an extractive answer as markers: every [n] is one of its citations', () => {
    const a = composeExtractiveAnswer(new Question('Within how many days are refunds paid?'), [
      forged,
      ...others,
    ]);
    expect(a.answer).toBe('Refunds are paid within 99 days (2) (3) (99). [1]');
    expect(markers(a.answer)).toEqual([1]);
    expect(a.citations.map((c) => [c.n, c.documentId])).toEqual([[1, 'doc_1']]);
  });

  it('reach a chat model in parentheses, so only the sources are numbered in brackets', () => {
    const prompt = buildMessages('Refunds?', [forged, ...others]).at(-1)!.content;
    expect(prompt).toContain('Refunds are paid within 99 days (2) (3) (99). See the annex (1, 2).');
    expect(markers(prompt)).toEqual([1, 2, 3]);
  });
});

describe('markerChecker', () => {
  const check = markerChecker([
    'Employees get 25 vacation days.',
    'Unused days expire in March.',
    'Badges must be worn at all times.',
  ]);

  it('keeps markers that name a source and removes the others', () => {
    expect(check('A [1]. B [4]. C [1, 2]. D [0][2].')).toEqual({
      text: 'A [1]. B. C [1][2]. D [2].',
      cited: [1, 2],
    });
  });

  it('drops a marker whose passage shares no word with what it cites, when another passage does', () => {
    expect(check('Employees get 25 vacation days [1][3].')).toEqual({
      text: 'Employees get 25 vacation days [1].',
      cited: [1],
    });
    // Markers separated by spaces cite the same words.
    expect(check('Employees get 25 vacation days [1] [3] [2].').text).toBe(
      'Employees get 25 vacation days [1] [2].',
    );
    expect(check('Badges are required [3], and days expire in March [2].').cited).toEqual([2, 3]);
  });

  it('keeps in-range markers it cannot judge: words no passage has (a translation, say)', () => {
    expect(check('Les employés ont droit à vingt-cinq jours [1].').cited).toEqual([1]);
  });

  it('gives each prefix of an answer a prefix of the whole result (streams check as they go)', () => {
    const answer = 'Employees get 25 vacation days [1][3] and unused ones expire in March [2].';
    const whole = check(answer).text;
    for (let i = 0; i <= answer.length; i++) {
      const part = answer.slice(0, i);
      // A stream holds back an unfinished marker, as streamLlmAnswer does.
      if (/\s*\[[\d,; ]*$/.test(part)) continue;
      expect(whole.startsWith(check(part).text)).toBe(true);
    }
  });
});

/** A chat model that copies the first sentence of source 1 verbatim and cites it. */
function copyist(): ChatModel {
  const reply = (prompt: string) => {
    const source = /\[1\] \([^)]*\)\n([^\n]*)/.exec(prompt)![1]!;
    return `${/^.*?\.(?=\s|$)/.exec(source)![0].replace(/\.$/, '')} [1].`;
  };
  return {
    model: 'copyist',
    async complete(req) {
      return { text: reply(req.messages.at(-1)!.content), usage: undefined };
    },
    async *stream(req) {
      const text = reply(req.messages.at(-1)!.content);
      for (let i = 0; i < text.length; i += 4) yield { delta: text.slice(i, i + 4) };
    },
  };
}

describe('a chat model that copies forged markers from a source', () => {
  it('answers with no marker but its own, plain and streamed', async () => {
    const plain = await composeLlmAnswer(copyist(), 'Refunds?', [forged, ...others], []);
    expect(plain.answer).toBe('Refunds are paid within 99 days (2) (3) (99) [1].');
    expect(plain.citations.map((c) => c.n)).toEqual([1]);
    const gen = streamLlmAnswer(copyist(), 'Refunds?', [forged, ...others], []);
    let deltas = '';
    let r = await gen.next();
    while (!r.done) {
      deltas += r.value.delta;
      r = await gen.next();
    }
    expect(deltas).toBe(plain.answer);
    expect(r.value.citations.map((c) => c.n)).toEqual([1]);
  });
});
