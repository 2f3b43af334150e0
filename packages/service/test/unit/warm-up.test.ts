import { describe, expect, it } from 'vitest';
import { parseBytes } from '../../src/parsing/parse.js';
import { warmUpPdf } from '../../src/sandbox/warm-up.js';

describe('the PDF a standby parser warms up on', () => {
  it('is a valid PDF whose every page and face pdf.js reads (else the warm-up would warm nothing)', async () => {
    const doc = await parseBytes(warmUpPdf(), 'warm-up.pdf', 'application/pdf');
    expect(doc.mediaType).toBe('application/pdf');
    expect(doc.pageCount).toBe(6);
    for (let page = 1; page <= 6; page++) expect(doc.text).toContain(`<!-- page ${page} -->`);
    for (const word of ['documents', 'sandbox', 'passage', 'answers', 'cite'])
      expect(doc.text).toContain(word);
    // 40 lines of 12 words on each page (pdf.js merges a few short words across faces).
    expect(doc.text.split(/\s+/).filter((w) => /^[a-z]+$/.test(w)).length).toBeGreaterThanOrEqual(
      6 * 40 * 12 * 0.9,
    );
  });
});
