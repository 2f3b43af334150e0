import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rssBytes } from '../../src/adapters/sandbox/supervise.js';
import { listZipEntries, openZip } from '../../src/parsing/zip.js';
import { packageRoot } from '../../src/paths.js';
import { makeDocx, makePdf, makeZip } from '../support/fixtures.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Hostile uploads, each in its own run beside a normal document, processed by a real worker process
 * (`docslurp worker`, as the stack runs it) with the default limits and the bubblewrap sandbox.
 */

let svc: TestService;
let api: ReturnType<typeof client>;
let worker: ChildProcess;
let workerPeakRss = 0;
let sampler: NodeJS.Timeout;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  api = client(svc.url, await svc.key());
  worker = spawn(process.execPath, [path.join(packageRoot(), 'dist/cli.js'), 'worker'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      DATA_DIR: svc.dataDir,
      DATABASE_URL: svc.dbs.urls.service,
      WORKFLOW_DATABASE_URL: svc.dbs.urls.workflow,
      JOB_POLL_INTERVAL_SECONDS: '0.5',
      RECONCILE_INTERVAL_SECONDS: '2',
      // Parser processes end a second after their last document, so the last test sees them gone.
      PARSER_PROCESS_IDLE_SECONDS: '1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // The worker's own memory (its sandboxed children are limited separately).
  sampler = setInterval(() => {
    const own = worker.pid ? rssBytes(worker.pid) : undefined;
    if (own !== undefined) workerPeakRss = Math.max(workerPeakRss, own);
  }, 50);
});

afterAll(async () => {
  clearInterval(sampler);
  worker?.kill('SIGTERM');
  await new Promise((r) => worker?.once('exit', r));
  await svc?.close();
});

const normal = { name: 'normal.md', content: '# Normal\n\nThis ordinary document must always become ready.' };

interface Outcome {
  status: string;
  code: string | undefined;
  filename: string;
  mediaType: string | null;
  id: string;
}

/** Uploads the case beside the normal document, waits for the run, and returns the case's outcome. */
async function runBeside(file: {
  name: string;
  content: string | Uint8Array;
  type?: string;
}): Promise<Outcome> {
  const up = await api.upload([normal, file]);
  expect(up.status).toBe(202);
  const progress = await api.waitForRun(up.body.run.id, 120_000);
  const documents = progress.documents as {
    id: string;
    status: string;
    filename: string;
    error: { code: string } | null;
  }[];
  // By upload order, not by position: two small files staged within one millisecond get ids (and so
  // a listing order) in either order.
  const ids = up.body.documents.map((d: { id: string }) => d.id) as string[];
  const [ok, hostile] = ids.map((id) => documents.find((d) => d.id === id));
  expect(ok).toMatchObject({ filename: 'normal.md', status: 'ready' });
  const record = await api.get(`/v1/documents/${hostile!.id}`);
  return {
    id: hostile!.id,
    status: hostile!.status,
    code: hostile!.error?.code,
    filename: hostile!.filename,
    mediaType: record.body.mediaType ?? null,
  };
}

const MiB = 1024 * 1024;
/** 100 MiB of zeros deflate to about 100 KiB. */
const zeros = deflateRawSync(Buffer.alloc(100 * MiB));

describe('hostile uploads', () => {
  it('a DOCX zip bomb whose entries lie about their size: decompression_bomb', async () => {
    // Twelve entries share one 100 MiB stream (1.2 GiB in all) and each claims to be 1 KB.
    const entries = Array.from({ length: 12 }, (_, i) => ({
      name: i === 0 ? 'word/document.xml' : `word/media/part${i}.xml`,
      data: zeros,
      deflated: true,
      declaredSize: 1000,
      ...(i > 0 ? { sharesDataOf: 0 } : {}),
    }));
    const bomb = makeZip(entries);
    expect(bomb.length).toBeLessThan(200 * 1024);
    expect(await runBeside({ name: 'bomb.docx', content: bomb })).toMatchObject({
      status: 'failed',
      code: 'decompression_bomb',
    });
  });

  it('an XLSX zip bomb that declares its expansion: decompression_bomb', async () => {
    const entries = [
      { name: 'xl/workbook.xml', data: '<workbook/>' },
      ...Array.from({ length: 12 }, (_, i) => ({
        name: `xl/worksheets/sheet${i + 1}.xml`,
        data: zeros,
        deflated: true,
        declaredSize: 100 * MiB,
        ...(i > 0 ? { sharesDataOf: 1 } : {}),
      })),
    ];
    expect(await runBeside({ name: 'bomb.xlsx', content: makeZip(entries) })).toMatchObject({
      status: 'failed',
      code: 'decompression_bomb',
    });
  });

  it('XML entity expansion inside an office file: unsafe_xml', async () => {
    const levels = Array.from(
      { length: 9 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`,
    ).join('');
    const xml = `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY lol0 "lol">${levels}]><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`;
    const base = makeDocx(['placeholder']);
    const names = listZipEntries(base)!.map((e) => e.name);
    const original = openZip(base, 10 * MiB);
    const laughs = makeZip(
      names.map((name) => ({ name, data: name === 'word/document.xml' ? xml : original.read(name)! })),
    );
    expect(await runBeside({ name: 'laughs.docx', content: laughs })).toMatchObject({
      status: 'failed',
      code: 'unsafe_xml',
    });
  });

  it('a PDF with a broken cross-reference table is rebuilt and read', async () => {
    const pdf = makePdf(['The cross reference table of this file points nowhere.']).toString('latin1');
    const broken = pdf
      .replace(/\d{10} 00000 n/g, '0000000999 00000 n')
      .replace(/startxref\n\d+/, 'startxref\n99999');
    const outcome = await runBeside({ name: 'broken-xref.pdf', content: Buffer.from(broken, 'latin1') });
    expect(outcome).toMatchObject({ status: 'ready', mediaType: 'application/pdf' });
    const text = await api.get(`/v1/documents/${outcome.id}/text`);
    expect(text.body).toContain('points nowhere');
  });

  it('a PDF whose cross-reference table and objects are both broken: corrupt_document', async () => {
    const pdf = makePdf(['Truncated.']).toString('latin1');
    const cut = `${pdf.slice(0, pdf.indexOf('stream') + 10)}\nxref\ngarbage\ntrailer\n<< /Root 99 0 R >>\nstartxref\n5\n%%EOF`;
    expect(await runBeside({ name: 'truncated.pdf', content: Buffer.from(cut, 'latin1') })).toMatchObject({
      status: 'failed',
      code: 'corrupt_document',
    });
  });

  it('a PDF with deeply nested objects: corrupt_document', async () => {
    const depth = 200_000;
    const pdf = makePdf(['Nested.'])
      .toString('latin1')
      .replace(
        '<< /Type /Catalog /Pages 2 0 R >>',
        `<< /Type /Catalog /Pages 2 0 R /Deep ${'['.repeat(depth)}${']'.repeat(depth)} >>`,
      );
    expect(await runBeside({ name: 'nested.pdf', content: Buffer.from(pdf, 'latin1') })).toMatchObject({
      status: 'failed',
      code: 'corrupt_document',
    });
  });

  it('random bytes named .pdf, and an empty file: refused at the door, with the reason of each', async () => {
    const up = await api.upload([
      normal,
      { name: 'random.pdf', content: randomBytes(64 * 1024), type: 'application/pdf' },
      { name: 'empty.txt', content: '' },
    ]);
    expect([up.status, up.body.error.code]).toEqual([415, 'unsupported_file_format']);
    expect(up.body.error.files.map((f: { filename: string; code: string }) => [f.filename, f.code])).toEqual([
      ['random.pdf', 'unsupported_media_type'],
      ['empty.txt', 'empty_document'],
    ]);
  });

  it('a text file with nothing but white space: empty_document', async () => {
    expect(await runBeside({ name: 'blank.txt', content: ' \n\t\n ' })).toMatchObject({
      status: 'failed',
      code: 'empty_document',
    });
  });

  it('a 100 MB file that is one line: parser_output_too_large, with the worker staying small', async () => {
    const line = Buffer.alloc(100 * 1000 * 1000, 'lorem ipsum dolor sit amet ');
    expect(await runBeside({ name: 'one-line.txt', content: line })).toMatchObject({
      status: 'failed',
      code: 'parser_output_too_large',
    });
  });

  it('file names with ../, NUL, control characters or 1,000 characters are stored harmlessly', async () => {
    const target = `docslurp-escape-${randomBytes(6).toString('hex')}.txt`;
    const cases = [
      { name: `../../../../../../tmp/${target}`, expected: target },
      { name: 'nul\u0000byte.txt', expected: 'nulbyte.txt' },
      { name: 'bell\u0007\u001b[31mred.txt', expected: 'bell[31mred.txt' },
      { name: `${'n'.repeat(996)}.txt`, expected: `${'n'.repeat(251)}.txt` },
    ];
    for (const c of cases) {
      const outcome = await runBeside({ name: c.name, content: 'A file with a strange name.' });
      expect(outcome).toMatchObject({ status: 'ready', filename: c.expected });
    }
    expect(existsSync(path.join('/tmp', target))).toBe(false);
    expect(existsSync(path.join(os.tmpdir(), target))).toBe(false);
  });

  it('a MIME type that lies about the content: the content decides', async () => {
    const pdfAsText = await runBeside({
      name: 'notes.txt',
      content: makePdf(['Actually a PDF.']),
      type: 'text/plain',
    });
    expect(pdfAsText).toMatchObject({ status: 'ready', mediaType: 'application/pdf' });
    const pngAsPdf = await runBeside({
      name: 'scan.pdf',
      content: Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        randomBytes(256),
      ]),
      type: 'application/pdf',
    });
    expect(pngAsPdf).toMatchObject({ status: 'needs_ocr', code: 'needs_ocr' });
  });

  it('kept the worker small and left nothing behind in its temporary folder', async () => {
    expect(workerPeakRss).toBeGreaterThan(0);
    expect(workerPeakRss).toBeLessThan(400 * MiB);
    const tmp = path.join(os.tmpdir(), `docslurp-${worker.pid}`);
    // The last parser process ends after its idle second and takes its inbox with it.
    await vi.waitFor(async () => expect(await readdir(tmp).catch(() => [])).toEqual([]), { timeout: 5_000 });
  });
});
