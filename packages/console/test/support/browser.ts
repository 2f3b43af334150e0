import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page, type Request, type Response } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium): Playwright's own browser download is not possible here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..', '..', '..');
export const consoleDist = path.join(repoRoot, 'packages', 'console', 'dist');

export interface Seen {
  url: string;
  method: string;
  status: number;
  contentType: string;
  body: string;
}

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Every response the page received, with its body as text (what a user's browser holds). */
  responses: Seen[];
  /** Every request the page sent, with its headers. */
  requests: { url: string; method: string; headers: Record<string, string> }[];
  /** Requests sent and responses received, in the order they happened. */
  timeline: { kind: 'request' | 'response'; url: string }[];
  close(): Promise<void>;
}

/**
 * A headless Chromium with a fresh profile of its own (its own cookie jar), recording what the page
 * sends and receives. Content-Security-Policy violations are collected into `window.__cspViolations`.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium"`);
  }
  const profile = await mkdtemp(path.join(os.tmpdir(), 'docslurp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 860 },
    deviceScaleFactor: 1,
    acceptDownloads: true,
  });
  await context.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const responses: Seen[] = [];
  const requests: TestBrowser['requests'] = [];
  const timeline: TestBrowser['timeline'] = [];
  const pending: Promise<void>[] = [];
  context.on('request', (r: Request) => {
    requests.push({ url: r.url(), method: r.method(), headers: r.headers() });
    timeline.push({ kind: 'request', url: r.url() });
  });
  context.on('response', (r: Response) => {
    timeline.push({ kind: 'response', url: r.url() });
    pending.push(
      (async () => {
        const contentType = r.headers()['content-type'] ?? '';
        // Event streams are read by the page; their content arrives in the JSON of the final event too.
        const body = contentType.includes('text/event-stream') ? '' : await r.text().catch(() => '');
        responses.push({ url: r.url(), method: r.request().method(), status: r.status(), contentType, body });
      })(),
    );
  });
  return {
    context,
    page,
    responses,
    requests,
    timeline,
    close: async () => {
      await Promise.allSettled(pending);
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go: docs/screenshots when UPDATE_SCREENSHOTS=1 (`npm run screenshots`), else a temp folder. */
export async function screenshotDir(): Promise<string> {
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    const dir = path.join(repoRoot, 'docs', 'screenshots');
    await mkdir(dir, { recursive: true });
    return dir;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-screens-'));
  await chmod(dir, 0o755);
  return dir;
}
