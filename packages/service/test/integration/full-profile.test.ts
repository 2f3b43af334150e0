import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxLayout } from '../../src/adapters/sandbox/bwrap.js';
import { SandboxedParser } from '../../src/adapters/sandbox/parser.js';
import { loadConfig } from '../../src/config.js';
import { silentLog } from '../../src/domain/log.js';
import { packageRoot } from '../../src/paths.js';
import { makeDocx, makeImagePdf, makePdf, readPgm } from '../support/fixtures.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';
import { missingCommands, missingFile, skipWithout } from '../support/tools.js';

/**
 * The full worker profile: OCR (tesseract) and legacy Office conversion (LibreOffice), both inside
 * the sandbox. The scans are real renderings of a text PDF (pdftoppm), so OCR reads real pixels.
 */

// The scans are rendered with the machine's fonts: without one, pdftoppm draws an empty page.
const skip = skipWithout(
  missingCommands(['pdftoppm', 'tesseract', 'soffice']) ??
    missingFile('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', 'fonts-dejavu-core'),
  'the full worker profile (OCR, PDF rendering, LibreOffice)',
);
const never = new AbortController().signal;
const SENTENCE = 'Invoice number 4711 is due in March';
let work: string;
let png: Buffer;
let scannedPdf: Buffer;
let legacyDoc: Buffer;

beforeAll(async () => {
  if (skip) return;
  work = await mkdtemp(path.join(os.tmpdir(), 'docslurp-full-test-'));
  const textPdf = path.join(work, 'text.pdf');
  await writeFile(textPdf, makePdf([`${SENTENCE}. Please pay on time.`]));
  execFileSync('pdftoppm', ['-r', '150', '-gray', '-singlefile', '-png', textPdf, path.join(work, 'page')]);
  png = await readFile(path.join(work, 'page.png'));
  execFileSync('pdftoppm', ['-r', '150', '-gray', '-singlefile', textPdf, path.join(work, 'page')]);
  const pgm = readPgm(await readFile(path.join(work, 'page.pgm')));
  scannedPdf = makeImagePdf(pgm.pixels, pgm.width, pgm.height);
  await writeFile(path.join(work, 'memo.docx'), makeDocx(['# Memo', 'The legacy format still matters.']));
  execFileSync('soffice', [
    `-env:UserInstallation=file://${path.join(work, 'lo')}`,
    '--headless',
    '--convert-to',
    'doc',
    '--outdir',
    work,
    path.join(work, 'memo.docx'),
  ]);
  legacyDoc = await readFile(path.join(work, 'memo.doc'));
}, 120_000);
afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

function parser(profile: 'default' | 'full') {
  const config = loadConfig({
    DATABASE_URL: 'postgres://db/x',
    PATH: process.env.PATH ?? '',
    WORKER_PROFILE: profile,
  });
  return new SandboxedParser({
    config: config.parser,
    layout: sandboxLayout(packageRoot()),
    tmpDir: work,
    log: silentLog,
  });
}

async function parseFile(p: SandboxedParser, name: string, bytes: Buffer) {
  const file = path.join(work, `in-${name}`);
  await writeFile(file, bytes);
  return (await p.parseMeasured({ path: file, filename: name, declaredMediaType: null }, never)).result;
}

describe.skipIf(skip)('the full worker profile', () => {
  it('reads an image by OCR inside the sandbox', async () => {
    const r = await parseFile(parser('full'), 'scan.png', png);
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    expect(r.document.mediaType).toBe('image/png');
    expect(r.document.text).toContain(SENTENCE);
  });

  it('reads a scanned PDF page by OCR, keeping its page marker', async () => {
    const r = await parseFile(parser('full'), 'scan.pdf', scannedPdf);
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    expect(r.document.pageCount).toBe(1);
    expect(r.document.text).toMatch(/^<!-- page 1 -->\n\n/);
    expect(r.document.text).toContain(SENTENCE);
  });

  it('converts a legacy .doc with LibreOffice inside the sandbox', async () => {
    const r = await parseFile(parser('full'), 'memo.doc', legacyDoc);
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    expect(r.document.mediaType).toBe('application/msword');
    expect(r.document.text).toBe('# Memo\n\nThe legacy format still matters.');
  });

  it('the default profile marks the same files needs_ocr or unsupported, with reasons', async () => {
    const p = parser('default');
    expect(await parseFile(p, 'scan.png', png)).toMatchObject({ ok: false, code: 'needs_ocr' });
    expect(await parseFile(p, 'scan.pdf', scannedPdf)).toMatchObject({ ok: false, code: 'needs_ocr' });
    expect(await parseFile(p, 'memo.doc', legacyDoc)).toMatchObject({
      ok: false,
      code: 'unsupported_media_type',
      message: expect.stringMatching(/legacy Office file \(\.doc\).*WORKER_PROFILE=full/),
    });
  });
});

describe.skipIf(skip)('a full worker behind the API', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { WORKER_PROFILE: 'full' } });
  });
  afterAll(() => svc?.close());

  it('makes scans and legacy files searchable, with the page of the scan cited', async () => {
    const api = client(svc.url, await svc.key());
    const up = await api.upload([
      { name: 'scan.pdf', content: scannedPdf },
      { name: 'memo.doc', content: legacyDoc },
    ]);
    const progress = await api.waitForRun(up.body.run.id, 120_000);
    expect(progress.counts).toMatchObject({ ready: 2, failed: 0 });
    const hit = await api.post('/v1/search', { workspaceId: up.body.workspace.id, q: 'invoice 4711 due' });
    expect(hit.body.results[0].citation).toMatchObject({ filename: 'scan.pdf', page: 1 });
    const memo = await api.post('/v1/search', { workspaceId: up.body.workspace.id, q: 'legacy format' });
    expect(memo.body.results[0].citation.filename).toBe('memo.doc');
  });
});
