import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  cliPath,
  embeddedDataDir,
  type ServeProcess,
  spawnServe,
  stopLeftoverPostgres,
} from '../../../service/test/support/spawn.js';
import { consoleDist, launchBrowser, type TestBrowser } from './browser.js';

/** The widths every layout point is checked at: a laptop and a phone. */
export const WIDTHS = [
  { name: 'laptop', width: 1280, height: 860 },
  { name: 'phone', width: 390, height: 844 },
] as const;

export interface ConsoleUnderTest {
  serve: ServeProcess;
  browser: TestBrowser;
  page: Page;
  close(): Promise<void>;
}

/** `docslurp serve` in embedded mode (a fresh data folder, `user` able to sign in) and a Chromium. */
export async function startConsole(
  user: { email: string; password: string },
  env: Record<string, string> = {},
): Promise<ConsoleUnderTest> {
  for (const built of [cliPath, path.join(consoleDist, 'index.html')]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run "npm run build" first (npm test does)`);
  }
  const dataDir = await embeddedDataDir();
  const serve = await spawnServe(dataDir, {
    CONSOLE_ADMIN_EMAIL: user.email,
    CONSOLE_ADMIN_PASSWORD: user.password,
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    ...env,
  });
  const browser = await launchBrowser();
  return {
    serve,
    browser,
    page: browser.page,
    close: async () => {
      await browser.close();
      await serve.stop();
      stopLeftoverPostgres(dataDir);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function signIn(p: Page, url: string, who: { email: string; password: string }) {
  await p.goto(`${url}/`);
  await p.getByLabel('Email').fill(who.email);
  await p.getByLabel('Password').fill(who.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByTestId('user-email').filter({ hasText: who.email }).waitFor();
}

/** Calls the API from inside the page, as the console's own code does (same origin, cookie, CSRF token). */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies and assert on their shape.
export async function api<T = any>(
  p: Page,
  method: string,
  url: string,
  json?: unknown,
): Promise<{ status: number; body: T }> {
  return p.evaluate(
    async ({ method, url, json }) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (method !== 'GET') {
        const s = await (await fetch('/v1/session', { headers })).json();
        headers['x-csrf-token'] = s.csrfToken;
      }
      if (json !== undefined) headers['content-type'] = 'application/json';
      const r = await fetch(url, {
        method,
        headers,
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : null };
    },
    { method, url, json },
  );
}

/** Uploads files through the API from the page; answers the upload's body. */
export async function upload(
  p: Page,
  files: { name: string; data: Buffer | string; type?: string }[],
  fields: Record<string, string> = {},
) {
  const payload = files.map((f) => ({
    name: f.name,
    type: f.type ?? 'application/octet-stream',
    b64: Buffer.from(f.data).toString('base64'),
  }));
  return p.evaluate(
    async ({ payload, fields }) => {
      const s = await (await fetch('/v1/session')).json();
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      for (const f of payload) {
        const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
        form.append('files', new Blob([bytes], { type: f.type }), f.name);
      }
      const r = await fetch('/v1/ingest/bulk', {
        method: 'POST',
        headers: { 'x-csrf-token': s.csrfToken },
        body: form,
      });
      return { status: r.status, body: await r.json() };
    },
    { payload, fields },
  );
}

/** Polls a run's progress from the page until it is done. */
export async function waitForRun(p: Page, runId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api(p, 'GET', `/v1/runs/${runId}/progress`);
    if (r.body.done && r.body.counts.processing === 0) return r.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} not done: ${JSON.stringify(r.body.counts)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe-core's findings of the given impacts (serious and critical by default) on the page as it is
 * now. axe is evaluated through the DevTools protocol (the console's CSP allows no inline script,
 * rightly), then run on the document.
 */
export async function axeFindings(
  p: Page,
  impacts: readonly string[] = ['serious', 'critical'],
): Promise<AxeFinding[]> {
  await p.evaluate(axeSource);
  return p.evaluate(async (impacts) => {
    interface Violation {
      id: string;
      impact: string;
      help: string;
      nodes: { target: string[] }[];
    }
    const axe = (
      window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: Violation[] }> } }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => impacts.includes(v.impact))
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
      }));
  }, impacts);
}

/**
 * Words broken across lines inside `box`: each word of its text whose glyphs land on more than one
 * line ("run.compl / eted", "applicatio / n / pdf"). Words longer than the box may break; none here is.
 */
export function brokenWords(box: Locator): Promise<string[]> {
  return box.evaluate((root) => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const m of text.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
    return broken;
  });
}

/** The element that has the keyboard's focus: its tag, text, accessible hints, and whether it is the page body. */
export function focused(p: Page) {
  return p.evaluate(() => {
    const e = document.activeElement;
    return {
      tag: e?.tagName ?? '',
      id: e?.id ?? '',
      text: (e?.textContent ?? '').trim(),
      label: e?.getAttribute('aria-label') ?? '',
      name: e?.getAttribute('name') ?? '',
      testId: e?.getAttribute('data-testid') ?? '',
      body: e === document.body || e === null,
      inMain: !!e?.closest('main'),
    };
  });
}
