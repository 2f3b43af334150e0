import { describe, expect, it } from 'vitest';
import { documentLabel } from '../../src/components/DocumentName.js';
import { MARK_END, MARK_START, markSplitter, withMarkRanges } from '../../src/lib/marks.js';
import { allowedSourceTypes } from '../../src/lib/sources.js';
import { suggestedName } from '../../src/lib/workspaces.js';

describe('the name an upload suggests for its new workspace', () => {
  const day = new Date(2025, 4, 12);
  const files = (...names: string[]) => names.map((name) => ({ name }));

  it("is one file's name without its extension", () => {
    expect(suggestedName(files('Quarterly report.pdf'), day)).toBe('Quarterly report');
  });

  it('is what several names have in common, never the first one "and 13 more"', () => {
    const memos = Array.from({ length: 40 }, (_, i) => `memo-${String(i).padStart(2, '0')}.txt`);
    expect(suggestedName(files(...memos), day)).toBe('memo');
    expect(suggestedName(files('Handbook part 1.pdf', 'Handbook part 2.pdf'), day)).toBe('Handbook part');
    const unrelated = suggestedName(files('TESTING', 'README.md', 'install.rst', 'notes.md'), day);
    expect(unrelated).not.toMatch(/TESTING|and \d+ more/);
    expect(unrelated).toBe(`Documents of ${day.toLocaleDateString(undefined, { dateStyle: 'medium' })}`);
  });

  it('is the folder the files were chosen from', () => {
    const chosen = [
      { name: 'TESTING', webkitRelativePath: 'freedombox-manual/TESTING' },
      { name: 'index.md', webkitRelativePath: 'freedombox-manual/apps/index.md' },
    ];
    expect(suggestedName(chosen, day)).toBe('freedombox-manual');
  });
});

describe("a document's name in lists", () => {
  it('is its path within its source, which tells apart four index.md', () => {
    expect(documentLabel({ filename: 'index.md', sourceItem: 'apps/matrix/index.md' })).toBe(
      'apps/matrix/index.md',
    );
    expect(documentLabel({ filename: 'index.md', sourceItem: null })).toBe('index.md');
    expect(documentLabel({ filename: 'Install', sourceItem: 'https://docs.example.com/install' })).toBe(
      'Install (https://docs.example.com/install)',
    );
  });
});

describe('marking a search snippet', () => {
  it("puts marks around the service's highlights, which the splitter turns into marked runs", () => {
    const text = 'Keep every receipt for travel expenses.';
    const source = withMarkRanges(text, [
      { start: 30, end: 38 },
      { start: 11, end: 18 },
    ]);
    expect(source).toBe(
      `Keep every ${MARK_START}receipt${MARK_END} for travel ${MARK_START}expenses${MARK_END}.`,
    );
    const parts = markSplitter()(source);
    expect(parts.filter((p) => p.marked).map((p) => p.text)).toEqual(['receipt', 'expenses']);
  });
});

describe('the source types offered', () => {
  it("are the server's when it says which it allows, else all of them", () => {
    expect(allowedSourceTypes({ sources: [], allowedTypes: ['website', 's3'] })).toEqual(['website', 's3']);
    expect(allowedSourceTypes({ sources: [] })).toEqual(['website', 's3', 'folder']);
  });
});
