/**
 * Size of the web console as a browser downloads it: what the first visit loads (index.html, the entry
 * script and what it imports, the stylesheet) and what is fetched later on demand (the PDF renderer
 * and its worker), raw, gzip and brotli. Reference in the same run: the smallest React application
 * (react + react-dom rendering one element) built with the same Vite version and settings, so the
 * report says how much the console adds to the framework it is built on.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { build } from 'vite';
import { describeMachine } from './machine.js';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'packages', 'console', 'dist');
const gz = promisify(gzip);
const br = promisify(brotliCompress);

interface Sized {
  file: string;
  raw: number;
  gzip: number;
  brotli: number;
}

async function measure(dir: string, file: string): Promise<Sized> {
  const data = await readFile(path.join(dir, file));
  return {
    file,
    raw: data.length,
    gzip: (await gz(data, { level: 9 })).length,
    brotli: (await br(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })).length,
  };
}

/** index.html, what it references, and what those scripts import statically (not `import()`). */
async function firstLoad(dir: string): Promise<string[]> {
  const html = await readFile(path.join(dir, 'index.html'), 'utf8');
  const files = new Set(['index.html']);
  const queue = Array.from(html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g), (m) => m[1]!);
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (files.has(file)) continue;
    files.add(file);
    if (!file.endsWith('.js')) continue;
    const code = await readFile(path.join(dir, file), 'utf8');
    for (const m of code.matchAll(/(?<![\w.(])(?:from|import)\s*["']\.\/([^"']+)["']/g)) {
      queue.push(`assets/${m[1]}`);
    }
  }
  return [...files];
}

const sum = (list: Sized[]) =>
  list.reduce((t, s) => ({ raw: t.raw + s.raw, gzip: t.gzip + s.gzip, brotli: t.brotli + s.brotli }), {
    raw: 0,
    gzip: 0,
    brotli: 0,
  });

/** The smallest React app, built like the console (same Vite, same minifier, production mode). */
async function referenceBuild(): Promise<{ files: Sized[]; total: ReturnType<typeof sum> }> {
  const dir = path.join(root, 'bench', '.console-reference');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    await writeFile(
      path.join(dir, 'index.html'),
      '<!doctype html><html><body><div id="root"></div><script type="module" src="/main.js"></script></body></html>',
    );
    await writeFile(
      path.join(dir, 'main.js'),
      "import { createElement } from 'react';\nimport { createRoot } from 'react-dom/client';\n" +
        "createRoot(document.getElementById('root')).render(createElement('p', null, 'Hello'));\n",
    );
    await build({
      root: dir,
      logLevel: 'warn',
      configFile: false,
      build: { outDir: 'dist', modulePreload: { polyfill: false }, reportCompressedSize: false },
    });
    const out = path.join(dir, 'dist');
    const files = await Promise.all((await firstLoad(out)).map((f) => measure(out, f)));
    return { files, total: sum(files) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const all = (await readdir(path.join(dist, 'assets')))
    .filter((f) => !/\.(gz|br)$/.test(f))
    .map((f) => `assets/${f}`);
  const initialFiles = await firstLoad(dist);
  const initial = await Promise.all(initialFiles.map((f) => measure(dist, f)));
  const lazy = await Promise.all(all.filter((f) => !initialFiles.includes(f)).map((f) => measure(dist, f)));
  // The Markdown renderer is fetched by the screens that show text; everything else on demand is pdf.js.
  const isMarkdown = (s: Sized) => /^assets\/render-/.test(s.file);
  const pdfFiles = lazy.filter((s) => !isMarkdown(s));
  const markdownFiles = lazy.filter(isMarkdown);
  const reference = await referenceBuild();
  const initialTotal = sum(initial);
  const report = {
    benchmark: 'console-bundle',
    firstLoad: { files: initial, total: initialTotal, requests: initial.length },
    onDemand: {
      what: 'PDF renderer (pdf.js) and its worker, fetched when a PDF is opened',
      files: pdfFiles,
      total: sum(pdfFiles),
    },
    onDemandText: {
      what: "Markdown renderer (marked and the console's rendering), fetched when a document's text, search or chat is opened",
      files: markdownFiles,
      total: sum(markdownFiles),
    },
    reference: {
      what: 'minimal React 19 app (react-dom/client rendering one element), same Vite build',
      ...reference,
    },
    ratioToReference: {
      gzip: Number((initialTotal.gzip / reference.total.gzip).toFixed(2)),
      brotli: Number((initialTotal.brotli / reference.total.brotli).toFixed(2)),
    },
    machine: describeMachine(),
  };
  const out = path.join(import.meta.dirname, 'results');
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'console-bundle.json'), `${JSON.stringify(report, null, 2)}\n`);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const row = (s: Sized) =>
    `| ${s.file.replace(/-[\w-]{8}\./, '.')} | ${kb(s.raw)} | ${kb(s.gzip)} | ${kb(s.brotli)} |`;
  const md = [
    `# Web console bundle (${report.machine.date.slice(0, 10)})`,
    '',
    'Sizes as a browser downloads them, compressed with gzip level 9 and brotli quality 11. The server',
    'sends the compressed copies the build writes (the same, except brotli quality 9 for files over 512 KiB).',
    '',
    '| First visit | raw | gzip | brotli |',
    '|---|---|---|---|',
    ...initial.map(row),
    `| **total (${initial.length} requests)** | **${kb(initialTotal.raw)}** | **${kb(initialTotal.gzip)}** | **${kb(initialTotal.brotli)}** |`,
    '',
    '| Fetched when a PDF is opened | raw | gzip | brotli |',
    '|---|---|---|---|',
    ...pdfFiles.map(row),
    '',
    '| Fetched when a document, search or chat is opened | raw | gzip | brotli |',
    '|---|---|---|---|',
    ...markdownFiles.map(row),
    '',
    `Reference, same run: a minimal React 19 app built the same way loads ${kb(reference.total.gzip)} gzip ` +
      `(${kb(reference.total.brotli)} brotli). The console's first visit is ${report.ratioToReference.gzip}× that ` +
      `(gzip), ${report.ratioToReference.brotli}× (brotli).`,
    '',
    `Machine: ${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.node}.`,
    '',
  ].join('\n');
  await writeFile(path.join(out, 'console-bundle.md'), md);
  process.stdout.write(md);
}

await main();
