import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy, TextLayer } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useRef, useState } from 'react';
import { ErrorNote, Loading, ScrollRegion } from '../components/common';
import { scrollWithin } from '../lib/scroll';
import { locateWords, wordsOf } from '../lib/text';
import './pdf.css';

// The worker is a file of its own on this origin, as the page's CSP requires.
GlobalWorkerOptions.workerSrc = workerUrl;

/** Pages are shown at this scale, or smaller where the screen is narrower than that (a phone). */
const CSS_SCALE = 1.25;
/** The padding of the pages' box, left and right together. */
const BOX_PADDING = 32;

interface Props {
  /** The PDF's bytes, already on their way when this component's code arrives. */
  bytes: Promise<ArrayBuffer>;
  /** The page to open at (1-based). */
  page: number | undefined;
  /** Per page, the words of the cited passage that lie on it: they are highlighted in the text layer. */
  highlights: Map<number, string[]>;
}

/** Renders one page (canvas and text layer) into `slot`, then marks the cited words on it. */
async function renderPage(
  pdf: PDFDocumentProxy,
  n: number,
  scale: number,
  slot: HTMLElement,
  words: string[] | undefined,
) {
  const page = await pdf.getPage(n);
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  const canvas = document.createElement('canvas');
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${viewport.width}px`;
  canvas.style.height = `${viewport.height}px`;
  const layer = document.createElement('div');
  layer.className = 'textLayer';
  // The text layer sizes its spans from these variables (pdf.js's viewer sets them the same way).
  slot.style.setProperty('--scale-factor', String(scale));
  slot.style.setProperty('--total-scale-factor', String(scale));
  slot.replaceChildren(canvas, layer);
  await page.render({
    canvas,
    viewport,
    ...(ratio === 1 ? {} : { transform: [ratio, 0, 0, ratio, 0, 0] }),
  }).promise;
  const textLayer = new TextLayer({
    textContentSource: page.streamTextContent(),
    container: layer,
    viewport,
  });
  await textLayer.render();
  slot.dataset.rendered = 'true';
  if (!words || words.length === 0) return;
  // The page's words, each remembering the text span it sits in.
  const pageWords: string[] = [];
  const owner: number[] = [];
  textLayer.textContentItemsStr.forEach((s, i) => {
    for (const w of wordsOf(s)) {
      pageWords.push(w);
      owner.push(i);
    }
  });
  const found = locateWords(pageWords, words);
  if (!found) return;
  const spans = new Set(owner.slice(found.start, found.end));
  for (const i of spans) textLayer.textDivs[i]?.classList.add('cited');
}

export default function PdfView({ bytes, page, highlights }: Props) {
  const [pdf, setPdf] = useState<PDFDocumentProxy>();
  const [sizes, setSizes] = useState<{ width: number; height: number }[]>([]);
  const [scale, setScale] = useState(CSS_SCALE);
  const [error, setError] = useState<unknown>();
  const frame = useRef<HTMLDivElement>(null);
  const container = useRef<HTMLElement>(null);
  const highlightsRef = useRef(highlights);
  highlightsRef.current = highlights;

  useEffect(() => {
    let cancelled = false;
    let loaded: PDFDocumentProxy | undefined;
    (async () => {
      // A copy: pdf.js hands its buffer over to the worker, and the bytes serve the next viewer too.
      const data = new Uint8Array(await bytes).slice();
      // No eval: the page's CSP forbids it, and pdf.js has an interpreter for fonts' glyph programs.
      loaded = await getDocument({ data, isEvalSupported: false, enableXfa: false }).promise;
      // As wide as the first page fits in the box: on a phone the page is not wider than the screen.
      const room = (frame.current?.clientWidth ?? 0) - BOX_PADDING;
      const natural = (await loaded.getPage(1)).getViewport({ scale: 1 }).width;
      const fit = room > 0 ? Math.min(CSS_SCALE, room / natural) : CSS_SCALE;
      const all = await Promise.all(
        Array.from({ length: loaded.numPages }, async (_, i) => {
          const v = (await loaded!.getPage(i + 1)).getViewport({ scale: fit });
          return { width: v.width, height: v.height };
        }),
      );
      if (cancelled) return;
      setScale(fit);
      setSizes(all);
      setPdf(loaded);
    })().catch((err: unknown) => {
      if (!cancelled) setError(err);
    });
    return () => {
      cancelled = true;
      void loaded?.destroy();
    };
  }, [bytes]);

  // Pages are rendered as they come near the screen, so a long PDF opens as fast as a short one.
  useEffect(() => {
    const root = container.current;
    if (!pdf || !root) return;
    const slots = Array.from(root.querySelectorAll<HTMLElement>('.pdf-page'));
    const started = new Set<number>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          const n = Number((entry.target as HTMLElement).dataset.page);
          if (started.has(n)) continue;
          started.add(n);
          renderPage(pdf, n, scale, entry.target as HTMLElement, highlightsRef.current.get(n))
            .then(() => {
              const cited = n === page ? entry.target.querySelector('.cited') : null;
              if (cited) scrollWithin(root, cited);
            })
            .catch((err: unknown) => setError(err));
        }
      },
      { root, rootMargin: '600px 0px' },
    );
    for (const s of slots) observer.observe(s);
    const target = page ? slots[page - 1] : undefined;
    if (target) scrollWithin(root, target, 'start');
    return () => observer.disconnect();
  }, [pdf, page, scale]);

  if (error) return <ErrorNote error={error} title="The PDF cannot be shown" />;
  return (
    <div ref={frame}>
      {pdf ? (
        <ScrollRegion className="pdf" ref={container} data-testid="pdf-view" label="Pages of the PDF">
          {sizes.map((s, i) => (
            <div
              // biome-ignore lint/suspicious/noArrayIndexKey: pages are numbered by position.
              key={i}
              className={`pdf-page${page === i + 1 ? ' target' : ''}`}
              data-page={i + 1}
              style={{ width: `${s.width}px`, height: `${s.height}px` }}
              role="img"
              aria-label={`Page ${i + 1}`}
            />
          ))}
        </ScrollRegion>
      ) : (
        <Loading />
      )}
    </div>
  );
}
