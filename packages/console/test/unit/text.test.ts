import { describe, expect, it } from 'vitest';
import { fileFractions, formatDuration, paceText, stageFraction } from '../../src/lib/progress.js';
import {
  highlightTerms,
  locateWords,
  pageAt,
  passageWordsOnPage,
  segmentText,
  splitCitationMarkers,
  wordsOf,
} from '../../src/lib/text.js';

const doc = '<!-- page 1 -->\n\nFirst page text.\n\n<!-- page 2 -->\n\nSecond page: travel costs.\n';

describe('segmentText', () => {
  it('splits at page markers, drops them, and keeps offsets into the whole text', () => {
    const pages = segmentText(doc);
    expect(pages.map((p) => p.page)).toEqual([1, 2]);
    expect(pages[0]!.parts).toEqual([{ text: '\nFirst page text.\n\n', marked: false }]);
    expect(doc.slice(pages[1]!.start).startsWith('\nSecond page')).toBe(true);
  });

  it('marks exactly the cited characters, across a page boundary too', () => {
    const start = doc.indexOf('text.');
    const end = doc.indexOf('travel') + 'travel'.length;
    const pages = segmentText(doc, { start, end });
    const marked = pages.flatMap((p) => p.parts.filter((x) => x.marked).map((x) => x.text));
    expect(marked).toEqual(['text.\n\n', '\nSecond page: travel']);
    // Page markers inside the range are not shown as marked text.
    expect(marked.join('')).not.toContain('<!--');
  });

  it('treats text without markers as one unpaged part', () => {
    expect(segmentText('Just text.', { start: 5, end: 9 })).toEqual([
      {
        page: null,
        start: 0,
        parts: [
          { text: 'Just ', marked: false },
          { text: 'text', marked: true },
          { text: '.', marked: false },
        ],
      },
    ]);
  });
});

describe('citations in the text', () => {
  it('finds the page of an offset', () => {
    expect(pageAt(doc, doc.indexOf('First'))).toBe(1);
    expect(pageAt(doc, doc.indexOf('travel'))).toBe(2);
    expect(pageAt('no markers', 3)).toBeNull();
  });

  it('gives the words of a passage on each page it spans', () => {
    const start = doc.indexOf('page text');
    const end = doc.indexOf('costs');
    expect(passageWordsOnPage(doc, start, end, 1)).toEqual(['page', 'text']);
    expect(passageWordsOnPage(doc, start, end, 2)).toEqual(['second', 'page', 'travel']);
  });

  it('locates a passage among the words of a PDF text layer, or declines when it is not there', () => {
    const page = wordsOf('Header line. Travel expenses are paid within 30 days after submission. Footer');
    const found = locateWords(page, wordsOf('travel expenses are paid within 30 days'));
    expect(found).toEqual({ start: 2, end: 9 });
    expect(page.slice(found!.start, found!.end).join(' ')).toBe('travel expenses are paid within 30 days');
    expect(locateWords(page, wordsOf('completely different words here'))).toBeUndefined();
  });
});

describe('search and chat text', () => {
  it('highlights the query words (and longer forms of them) in a passage', () => {
    const parts = highlightTerms(
      'Receipts for travel: reimbursement of travelling costs.',
      'travel receipt of',
    );
    expect(parts.filter((p) => p.marked).map((p) => p.text)).toEqual(['Receipts', 'travel', 'travelling']);
    expect(parts.map((p) => p.text).join('')).toBe('Receipts for travel: reimbursement of travelling costs.');
  });

  it('splits an answer at its citation markers', () => {
    expect(splitCitationMarkers('25 days [1]. Carried over [2].')).toEqual([
      { at: 0, text: '25 days ' },
      { at: 8, n: 1 },
      { at: 11, text: '. Carried over ' },
      { at: 26, n: 2 },
      { at: 29, text: '.' },
    ]);
  });
});

describe('progress', () => {
  it("gives each file of a multipart upload its share of the bytes sent, in the parts' order", () => {
    const files = [{ size: 1000 }, { size: 3000 }, { size: 0 }];
    const total = 4000 + 3 * 200; // framing spread over the parts
    expect(fileFractions(files, 0, total)).toEqual([0, 0, 0]);
    expect(fileFractions(files, 600, total)).toEqual([0.5, 0, 0]);
    expect(fileFractions(files, 1200, total)).toEqual([1, 0, 0]);
    expect(fileFractions(files, 2800, total)).toEqual([1, 0.5, 0]);
    expect(fileFractions(files, total, total)).toEqual([1, 1, 1]);
  });

  it('turns a document stage into a bar value', () => {
    expect(stageFraction('queued', 'queued')).toBe(0);
    expect(stageFraction('processing', 'chunking')).toBe(0.5);
    expect(stageFraction('ready', 'done')).toBe(1);
    expect(stageFraction('failed', 'parsing')).toBe(1);
  });

  it('says how fast a run goes and how long it still needs', () => {
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(150)).toBe('3 min');
    expect(formatDuration(2 * 3600 + 5 * 60)).toBe('2 h 5 min');
    expect(formatDuration(3600)).toBe('1 h');
    expect(paceText({ status: 'processing', documentsPerSecond: 152.4, etaSeconds: 35 })).toBe(
      '152 documents/s · about 35 s left',
    );
    expect(paceText({ status: 'processing', documentsPerSecond: 0.25, etaSeconds: 480 })).toBe(
      '0.3 documents/s · about 8 min left',
    );
    expect(paceText({ status: 'completed', documentsPerSecond: 88, etaSeconds: 0 })).toBe('88 documents/s');
    expect(paceText({ status: 'processing', documentsPerSecond: null, etaSeconds: null })).toBe('');
  });
});
