import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../../sdk/src/errors.js';
import { DOCUMENT_FAILURE_CODES, ERROR_CODES, ERROR_STATUS, OTHER_STATUSES } from '../../src/errors.js';
import { SYNC_FAILURE_CODES } from '../../src/sources/model.js';

const root = new URL('../../../../', import.meta.url);
const apiDoc = readFileSync(new URL('docs/api.md', root), 'utf8');
const sdkReadme = readFileSync(new URL('packages/sdk/README.md', root), 'utf8');

/** The rows of the first Markdown table after `heading`, as arrays of cells. */
function tableAfter(text: string, heading: RegExp): string[][] {
  const lines = text.slice(text.search(heading)).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** Lower-case snake_case codes quoted in a text (leaves out settings and header names). */
const codesIn = (text: string) => new Set([...text.matchAll(/`([a-z][a-z_]*)`/g)].map((m) => m[1]!));

describe('the error catalogue', () => {
  const apiRows = tableAfter(apiDoc, /^## Errors$/m);

  it('is the table in docs/api.md: every code under its status (and its other ones), and no other code', () => {
    const documented = new Map<string, number[]>();
    for (const [status, codes] of apiRows)
      for (const code of codesIn(codes!))
        documented.set(code, [...(documented.get(code) ?? []), Number(status)]);
    const catalogue = Object.fromEntries(
      ERROR_CODES.map((code) => [code, [ERROR_STATUS[code], ...(OTHER_STATUSES[code] ?? [])].sort()]),
    );
    expect(Object.fromEntries([...documented].map(([code, statuses]) => [code, statuses.sort()]))).toEqual(
      catalogue,
    );
  });

  it('is mapped by the SDK to the error class whose documented row names the code', () => {
    const sdkRows = tableAfter(sdkReadme, /^## Errors$/m);
    const rowOf = (className: string) => sdkRows.find(([cls]) => cls === `\`${className}\``);
    for (const code of ERROR_CODES)
      for (const status of [ERROR_STATUS[code], ...(OTHER_STATUSES[code] ?? [])]) {
        const body = JSON.stringify({ error: { code, message: 'm', requestId: 'req_1' } });
        const error = errorFromResponse(status, new Headers(), body, 'sdk_1');
        expect({ code: error.code, status: error.status }).toEqual({ code, status });
        const row = rowOf(error.constructor.name);
        expect(row, `${error.constructor.name} for ${code} has a row in the SDK's error table`).toBeDefined();
        expect(codesIn(row![2]!).has(code), `the ${error.constructor.name} row names ${code}`).toBe(true);
      }
  });

  it('lists every document failure code in docs/api.md', () => {
    const paragraphs = apiDoc.split('\n\n').filter((p) => /failure codes/i.test(p));
    const documented = codesIn(paragraphs.join('\n'));
    for (const code of DOCUMENT_FAILURE_CODES) expect(documented.has(code), code).toBe(true);
  });

  it('lists every sync failure code (the error of a failed sync run) in docs/api.md', () => {
    const paragraphs = apiDoc.split('\n\n').filter((p) => /sync failure codes/i.test(p));
    const documented = codesIn(paragraphs.join('\n'));
    for (const code of SYNC_FAILURE_CODES) expect(documented.has(code), code).toBe(true);
  });
});
