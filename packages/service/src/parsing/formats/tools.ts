import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DocumentFailure } from '../../errors.js';

/**
 * The full worker's external programs: tesseract (OCR), pdftoppm (PDF pages to images) and
 * LibreOffice (legacy Office conversion). They run as children of the parser process, so they are
 * inside the same sandbox and count against the same limits.
 */

function run(program: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) {
          const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
          reject(
            new DocumentFailure(
              missing ? 'tool_unavailable' : 'conversion_failed',
              missing
                ? `${program} is not installed in this worker; the full worker image provides it.`
                : `${program} failed: ${(stderr || err.message).trim().split('\n').at(-1)?.slice(0, 300)}`,
            ),
          );
        } else resolve({ stdout, stderr });
      },
    );
  });
}

async function withScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tool-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The full profile's programs, and how to ask each for its version (which proves it starts). */
export const FULL_PROFILE_TOOLS = [
  {
    program: 'tesseract',
    args: ['--version'],
    purpose: 'OCR of images and scanned PDF pages',
    apt: 'tesseract-ocr',
  },
  { program: 'pdftoppm', args: ['-v'], purpose: 'rendering scanned PDF pages for OCR', apt: 'poppler-utils' },
  {
    program: 'soffice',
    args: ['--headless', '--version'],
    purpose: 'converting legacy .doc/.xls/.ppt files',
    apt: 'libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui',
  },
] as const;

/** The first line a tool prints about its version, or `missing: …` / `failed: …`. */
export async function toolVersion(tool: (typeof FULL_PROFILE_TOOLS)[number]): Promise<string> {
  return new Promise((resolve) => {
    execFile(tool.program, [...tool.args], { timeout: 60_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const first =
        `${stdout}\n${stderr}`
          .split('\n')
          .find((l) => l.trim())
          ?.trim() ?? '';
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') resolve('missing');
      else if (err && !first) resolve(`failed: ${err.message}`);
      else resolve(first);
    });
  });
}

/** Page segmentation with orientation detection, so rotated scans read the right way up. */
const TESSERACT_ARGS = ['--psm', '1', '-l', 'eng'];

async function tesseract(image: string, cwd: string): Promise<string> {
  const { stdout } = await run('tesseract', [image, 'stdout', ...TESSERACT_ARGS], cwd);
  return stdout;
}

export async function ocrImage(buf: Buffer): Promise<string> {
  return withScratch(async (dir) => {
    const file = path.join(dir, 'image');
    await writeFile(file, buf);
    return tesseract(file, dir);
  });
}

/** OCR of the given 1-based PDF pages, rendered at 300 dpi. */
export async function ocrPdfPages(buf: Buffer, pages: number[]): Promise<Map<number, string>> {
  return withScratch(async (dir) => {
    const pdf = path.join(dir, 'input.pdf');
    await writeFile(pdf, buf);
    const texts = new Map<number, string>();
    for (const n of pages) {
      const prefix = path.join(dir, `page-${n}`);
      await run(
        'pdftoppm',
        ['-r', '300', '-gray', '-f', String(n), '-l', String(n), '-singlefile', '-png', pdf, prefix],
        dir,
      );
      texts.set(n, await tesseract(`${prefix}.png`, dir));
      await rm(`${prefix}.png`, { force: true });
    }
    return texts;
  });
}

/** Converts a legacy Office file with LibreOffice to the given modern format; returns its bytes. */
export async function convertWithLibreOffice(buf: Buffer, fromExt: string, toExt: string): Promise<Buffer> {
  return withScratch(async (dir) => {
    const input = path.join(dir, `input.${fromExt}`);
    const out = path.join(dir, 'out');
    await writeFile(input, buf);
    await run(
      'soffice',
      [
        `-env:UserInstallation=file://${path.join(dir, 'profile')}`,
        '--headless',
        '--norestore',
        '--nolockcheck',
        '--convert-to',
        toExt,
        '--outdir',
        out,
        input,
      ],
      dir,
    );
    const produced = (await readdir(out).catch(() => [] as string[])).find((f) => f.endsWith(`.${toExt}`));
    if (!produced) {
      throw new DocumentFailure('conversion_failed', `LibreOffice could not convert this .${fromExt} file.`);
    }
    return readFile(path.join(out, produced));
  });
}
