import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeFilename } from '../../src/domain/filenames.js';
import { checkUpload, Sampler } from '../../src/parsing/upload-check.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService({ worker: false });
  key = await svc.key();
});
afterAll(() => svc?.close());

/** File names as they arrive from browsers, scripts and attackers. */
const filename = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '../../etc/passwd',
    '..\\..\\boot.ini',
    'a\u0000b.txt',
    '\u0007bell\u001b[31m.md',
    '.hidden',
    ' ',
    '',
    'gpj.\u202eexe.txt',
    '\u2067invoice\u2069\u200f.pdf',
  ),
  fc.string({ minLength: 300, maxLength: 1200 }).map((s) => `${s}.pdf`),
  // Long names of astral characters (two UTF-16 units each), cut near the limit.
  fc.string({ unit: 'grapheme', minLength: 120, maxLength: 400 }).map((s) => `${s}.txt`),
  fc.integer({ min: 240, max: 260 }).map((n) => `${'a'.repeat(n)}\u{1F600}\u{1F600}.pdf`),
);

/** A surrogate without its partner: what cutting a string between the two halves leaves. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Controls that reorder text for display, so that "gpj.[RLO]exe.txt" shows as "gpj.txt.exe". */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('file names', () => {
  it('are always made safe: no folders, no control or bidi characters, at most 255 characters cut between characters, never empty', () => {
    fc.assert(
      fc.property(filename, (raw) => {
        const safe = sanitizeFilename(raw);
        expect(safe.length).toBeGreaterThan(0);
        expect(safe.length).toBeLessThanOrEqual(255);
        expect(safe).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
        expect(safe).not.toMatch(/^\./);
        expect(safe).not.toMatch(LONE_SURROGATE);
        expect(safe).not.toMatch(BIDI_CONTROLS);
      }),
      { numRuns: 2000 },
    );
  });
});

/** Whether the upload's check lets these bytes in (every profile's worker could read them). */
function readable(bytes: Uint8Array): boolean {
  const sampler = new Sampler();
  sampler.add(Buffer.from(bytes));
  return checkUpload(sampler.sample(), 'f', null).ok;
}

describe('multipart uploads', () => {
  it('store exactly the bytes sent, under a safe name, whatever the names and contents', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            name: filename,
            bytes: fc.oneof(
              fc.uint8Array({ maxLength: 5000 }),
              fc.string({ unit: 'grapheme', maxLength: 2000 }).map((t) => new TextEncoder().encode(t)),
            ),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (files) => {
          const form = new FormData();
          for (const f of files) form.append('files', new Blob([f.bytes]), f.name);
          const res = await fetch(`${svc.url}/v1/ingest/bulk`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}` },
            body: form,
          });
          // A file no worker could read refuses the upload, naming exactly those files.
          const refused = files.flatMap((f, i) => (readable(f.bytes) ? [] : [i]));
          if (refused.length > 0) {
            expect(res.status).toBe(415);
            const error = ((await res.json()) as { error: { files: { index: number; filename: string }[] } })
              .error;
            expect(error.files.map((f) => f.index)).toEqual(refused);
            for (const f of error.files) expect(f.filename).not.toMatch(/[/\\\u0000-\u001f]/);
            return;
          }
          expect(res.status).toBe(202);
          const body = (await res.json()) as {
            documents: { id: string; filename: string; sizeBytes: number; sha256: string }[];
          };
          expect(body.documents).toHaveLength(files.length);
          for (const [i, doc] of body.documents.entries()) {
            const sent = files[i]!.bytes;
            expect(doc.sizeBytes).toBe(sent.length);
            expect(doc.sha256).toBe(createHash('sha256').update(sent).digest('hex'));
            expect(doc.filename).not.toMatch(/[/\\\u0000-\u001f]/);
            const back = await fetch(`${svc.url}/v1/documents/${doc.id}/content`, {
              headers: { authorization: `Bearer ${key}` },
            });
            expect(Buffer.from(await back.arrayBuffer()).equals(Buffer.from(sent))).toBe(true);
          }
        },
      ),
      // The first counterexample found: busboy gives an empty file name as undefined.
      {
        numRuns: 40,
        examples: [
          [
            [
              { name: '', bytes: new TextEncoder().encode('x') },
              { name: `${' '.repeat(300)}.pdf`, bytes: new TextEncoder().encode('y') },
            ],
          ],
          [[{ name: '', bytes: new Uint8Array() }]],
        ],
      },
    );
  });
});

describe('input validation', () => {
  const api = () => client(svc.url, key);

  it('answers any JSON body to search and chat with a result or a 4xx error body, never a 500', async () => {
    const anyBody = fc.oneof(
      fc.anything(),
      fc.record(
        {
          workspaceId: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())),
          q: fc.oneof(fc.string({ maxLength: 3000 }), fc.integer(), fc.constant(null), fc.object()),
          topK: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
          filters: fc.oneof(fc.anything(), fc.record({ documentIds: fc.anything() })),
          stream: fc.oneof(fc.boolean(), fc.string()),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        anyBody,
        fc.constantFrom('/v1/search', '/v1/search/chat', '/v1/ingest/urls', '/v1/keys'),
        async (body, path) => {
          const r = await api().post(path, body);
          expect(r.status, JSON.stringify(body)).toBeLessThan(500);
          if (r.status >= 400) {
            expect(typeof r.body.error.code).toBe('string');
            expect(typeof r.body.error.message).toBe('string');
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers any path parameter and query string without a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), async (id, q) => {
        for (const path of [
          `/v1/documents/${encodeURIComponent(id)}`,
          `/v1/runs/${encodeURIComponent(id)}/progress`,
          `/v1/search?workspaceId=${encodeURIComponent(id)}&q=${encodeURIComponent(q)}&topK=${encodeURIComponent(q)}`,
        ]) {
          const r = await api().get(path);
          expect(r.status, path).toBeLessThan(500);
        }
      }),
      { numRuns: 100 },
    );
  });
});
