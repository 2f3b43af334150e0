import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy, TextLayer } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useRef, useState } from 'react';
import { ErrorNote, Loading, ScrollRegion } from '../components/common';
import { revealWithin, scrollWithin } from '../lib/scroll';
import { locateWords, wordsOf } from '../lib/text';
import { fitScale, pinchScale, stepScale, type TextBox, textColumn, zoomText } from '../lib/zoom';
import './pdf.css';

// The worker is a file of its own on this origin, as the page's CSP requires.
GlobalWorkerOptions.workerSrc = workerUrl;

/** Pages open at this scale, or smaller where the screen is narrower than that (a phone). */
const CSS_SCALE = 1.25;
/** The padding of the pages' box, left and right together. */
const BOX_PADDING = 32;
/** Room left on each side of a text column fitted to the width. */
const COLUMN_MARGIN = 8;

interface Props {
  /** The PDF's bytes, already on their way when this component's code arrives. */
  bytes: Promise<ArrayBuffer>;
  /** The page to open at (1-based). */
  page: number | undefined;
  /** Per page, the words of the cited passage that lie on it: they are highlighted in the text layer. */
  highlights: Map<number, string[]>;
  /** Each change asks to bring the highlight into view again (the cited passage's line was pressed). */
  reveal?: number;
}

/**
 * Renders one page (canvas and text layer) into `slot`, then marks the cited words on it. `live`
 * says whether the scale is still the one asked for: a render overtaken by a zoom leaves the slot.
 */
async function renderPage(
  pdf: PDFDocumentProxy,
  n: number,
  scale: number,
  slot: HTMLElement,
  words: string[] | undefined,
  live: () => boolean,
) {
  const page = await pdf.getPage(n);
  if (!live()) return;
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  const canvas = document.createElement('canvas');
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${viewport.width}px`;
  canvas.style.height = `${viewport.height}px`;
  // The page is an image named "Page n" (its slot); the text layer carries its words.
  canvas.setAttribute('aria-hidden', 'true');
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
  if (!live()) return;
  slot.dataset.rendered = 'true';
  slot.dataset.scale = String(scale);
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

/** Where page `n`'s text column lies across it, at scale 1. */
async function columnOf(pdf: PDFDocumentProxy, n: number) {
  const page = await pdf.getPage(n);
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const boxes: TextBox[] = [];
  for (const item of content.items) {
    if (!('str' in item) || !item.str.trim()) continue;
    const [x] = viewport.convertToViewportPoint(item.transform[4], item.transform[5]);
    boxes.push({ x, width: item.width });
  }
  return textColumn(boxes);
}

/** The width pages may take in the viewer's frame. */
const roomIn = (frame: HTMLElement | null) => (frame?.clientWidth ?? 0) - BOX_PADDING;

const distance = (t: TouchList) => Math.hypot(t[0]!.clientX - t[1]!.clientX, t[0]!.clientY - t[1]!.clientY);

export default function PdfView({ bytes, page, highlights, reveal }: Props) {
  const [pdf, setPdf] = useState<PDFDocumentProxy>();
  // Each page's size at scale 1: shown at `scale`, which zooming changes.
  const [sizes, setSizes] = useState<{ width: number; height: number }[]>([]);
  const [scale, setScale] = useState(CSS_SCALE);
  const [error, setError] = useState<unknown>();
  const frame = useRef<HTMLDivElement>(null);
  const container = useRef<HTMLElement>(null);
  const pages = useRef<HTMLDivElement>(null);
  const highlightsRef = useRef(highlights);
  highlightsRef.current = highlights;
  // Whether the cited passage still has to be brought into view (on opening, and when asked again).
  const revealing = useRef(true);
  // Where to put the scroll position once the pages have their new size (after a zoom).
  const nextScroll = useRef<{ left: number; top: number }>(undefined);

  const room = () => roomIn(frame.current);

  useEffect(() => {
    let cancelled = false;
    let loaded: PDFDocumentProxy | undefined;
    (async () => {
      // A copy: pdf.js hands its buffer over to the worker, and the bytes serve the next viewer too.
      const data = new Uint8Array(await bytes).slice();
      // No eval: the page's CSP forbids it, and pdf.js has an interpreter for fonts' glyph programs.
      loaded = await getDocument({ data, isEvalSupported: false, enableXfa: false }).promise;
      const all = await Promise.all(
        Array.from({ length: loaded.numPages }, async (_, i) => {
          const v = (await loaded!.getPage(i + 1)).getViewport({ scale: 1 });
          return { width: v.width, height: v.height };
        }),
      );
      if (cancelled) return;
      // As wide as the first page fits in the box: on a phone the page is not wider than the screen.
      const space = roomIn(frame.current);
      setScale(space > 0 ? Math.min(CSS_SCALE, space / all[0]!.width) : CSS_SCALE);
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

  /** The cited passage into view, once its page is rendered; true when it was. */
  const revealCited = (root: HTMLElement): boolean => {
    const cited = page
      ? root.querySelector(`.pdf-page[data-page="${page}"][data-rendered="true"] .cited`)
      : null;
    if (!cited) return false;
    revealWithin(root, cited);
    revealing.current = false;
    return true;
  };

  // Pages are rendered as they come near the screen, so a long PDF opens as fast as a short one.
  // A zoom renders them again at the new scale.
  // biome-ignore lint/correctness/useExhaustiveDependencies: revealCited reads the refs of this render.
  useEffect(() => {
    const root = container.current;
    if (!pdf || !root) return;
    let live = true;
    const slots = Array.from(root.querySelectorAll<HTMLElement>('.pdf-page'));
    for (const s of slots) s.dataset.rendered = 'false';
    const started = new Set<number>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          const n = Number((entry.target as HTMLElement).dataset.page);
          if (started.has(n)) continue;
          started.add(n);
          renderPage(pdf, n, scale, entry.target as HTMLElement, highlightsRef.current.get(n), () => live)
            .then(() => {
              if (live && n === page && revealing.current) revealCited(root);
            })
            .catch((err: unknown) => setError(err));
        }
      },
      { root, rootMargin: '600px 0px' },
    );
    for (const s of slots) observer.observe(s);
    const to = nextScroll.current;
    nextScroll.current = undefined;
    if (to) {
      root.scrollLeft = to.left;
      root.scrollTop = to.top;
    } else {
      const target = page ? slots[page - 1] : undefined;
      if (target) scrollWithin(root, target, 'start');
    }
    return () => {
      live = false;
      observer.disconnect();
    };
  }, [pdf, page, scale]);

  // Asked again (the cited passage's line): to its page, and to the passage once it is rendered.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new request reveals again.
  useEffect(() => {
    const root = container.current;
    if (!reveal || !root || !page) return;
    revealing.current = true;
    if (revealCited(root)) return;
    const slot = root.querySelector(`.pdf-page[data-page="${page}"]`);
    if (slot) revealWithin(root, slot, 'start');
  }, [reveal]);

  /** Changes the scale, keeping the point at the middle of the box (or `at`) where it is on screen. */
  const zoomTo = (next: number, at?: { x: number; y: number }) => {
    const root = container.current;
    if (!root || next === scale) return;
    const x = at?.x ?? root.clientWidth / 2;
    const y = at?.y ?? root.clientHeight / 2;
    const k = next / scale;
    nextScroll.current = { left: (root.scrollLeft + x) * k - x, top: (root.scrollTop + y) * k - y };
    setScale(next);
  };

  /** The text column of the page at the top of the box (or the cited one) as wide as the box. */
  const fitText = async () => {
    const root = container.current;
    if (!pdf || !root) return;
    const slots = Array.from(root.querySelectorAll<HTMLElement>('.pdf-page'));
    const top = root.getBoundingClientRect().top;
    const shown = slots.find((s) => s.getBoundingClientRect().bottom > top + 1);
    const n = Number(shown?.dataset.page ?? page ?? 1);
    const column = await columnOf(pdf, n);
    if (!column) {
      // A scan has no text to measure: the whole page is fitted instead.
      zoomTo(fitScale(room(), sizes[n - 1]!.width));
      return;
    }
    const next = fitScale(room() - 2 * COLUMN_MARGIN, column.width);
    const slot = slots[n - 1]!;
    // The page's top stays where it is on screen; its text column's left edge goes to the box's.
    const pageTop = (root.scrollTop + slot.getBoundingClientRect().top - top) * (next / scale);
    const pageLeft = Math.max(0, (root.clientWidth - sizes[n - 1]!.width * next) / 2);
    nextScroll.current = {
      // The column in the middle of the box: as much room on its left as on its right.
      left: Math.max(0, pageLeft + column.left * next - (root.clientWidth - column.width * next) / 2),
      top: pageTop - (slot.getBoundingClientRect().top - top),
    };
    if (next === scale) {
      root.scrollLeft = nextScroll.current.left;
      nextScroll.current = undefined;
    } else setScale(next);
  };

  // A pinch inside the box zooms the pages (the browser's own zoom would zoom the whole screen):
  // while the fingers move the pages are stretched, and rendered again at the new scale at the end.
  // biome-ignore lint/correctness/useExhaustiveDependencies: zoomTo reads this render's scale.
  useEffect(() => {
    const root = container.current;
    const inner = pages.current;
    if (!root || !inner) return;
    let start: { distance: number; x: number; y: number } | undefined;
    let ratio = 1;
    const onStart = (e: TouchEvent) => {
      if (e.touches.length !== 2) return;
      const box = root.getBoundingClientRect();
      const x = (e.touches[0]!.clientX + e.touches[1]!.clientX) / 2 - box.left;
      const y = (e.touches[0]!.clientY + e.touches[1]!.clientY) / 2 - box.top;
      start = { distance: distance(e.touches), x, y };
      ratio = 1;
      inner.style.transformOrigin = `${root.scrollLeft + x}px ${root.scrollTop + y}px`;
    };
    const onMove = (e: TouchEvent) => {
      if (!start || e.touches.length !== 2) return;
      e.preventDefault();
      ratio = pinchScale(scale, start.distance, distance(e.touches)) / scale;
      inner.style.transform = `scale(${ratio})`;
    };
    const onEnd = () => {
      if (!start) return;
      const at = { x: start.x, y: start.y };
      start = undefined;
      inner.style.transform = '';
      zoomTo(pinchScale(scale, 1, ratio), at);
    };
    root.addEventListener('touchstart', onStart, { passive: true });
    root.addEventListener('touchmove', onMove, { passive: false });
    root.addEventListener('touchend', onEnd);
    root.addEventListener('touchcancel', onEnd);
    return () => {
      root.removeEventListener('touchstart', onStart);
      root.removeEventListener('touchmove', onMove);
      root.removeEventListener('touchend', onEnd);
      root.removeEventListener('touchcancel', onEnd);
    };
  }, [pdf, scale]);

  if (error) return <ErrorNote error={error} title="The PDF cannot be shown" />;
  return (
    <div ref={frame}>
      {pdf ? (
        <>
          <fieldset className="pdf-zoom" data-testid="pdf-zoom">
            <legend className="sr-only">Zoom</legend>
            <button type="button" aria-label="Zoom out" onClick={() => zoomTo(stepScale(scale, -1))}>
              −
            </button>
            <output aria-live="polite" data-testid="pdf-scale">
              {zoomText(scale)}
            </output>
            <button type="button" aria-label="Zoom in" onClick={() => zoomTo(stepScale(scale, 1))}>
              +
            </button>
            <button type="button" onClick={() => zoomTo(fitScale(room(), sizes[0]!.width))}>
              Fit page
            </button>
            <button type="button" onClick={() => void fitText().catch(setError)}>
              Fit text to width
            </button>
          </fieldset>
          <ScrollRegion className="pdf" ref={container} data-testid="pdf-view" label="Pages of the PDF">
            <div className="pdf-pages" ref={pages}>
              {sizes.map((s, i) => (
                <div
                  // biome-ignore lint/suspicious/noArrayIndexKey: pages are numbered by position.
                  key={i}
                  className={`pdf-page${page === i + 1 ? ' target' : ''}`}
                  data-page={i + 1}
                  style={{ width: `${s.width * scale}px`, height: `${s.height * scale}px` }}
                  role="img"
                  aria-label={`Page ${i + 1}`}
                />
              ))}
            </div>
          </ScrollRegion>
        </>
      ) : (
        <Loading />
      )}
    </div>
  );
}
