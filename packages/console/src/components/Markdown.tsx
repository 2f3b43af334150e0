import { type ReactNode, useEffect, useState } from 'react';
import type { MarkdownOptions } from '../markdown/render';

type Renderer = typeof import('../markdown/render');

let loaded: Renderer | undefined;
let loading: Promise<Renderer> | undefined;

/**
 * The Markdown renderer (marked and its React rendering) is fetched only by the screens that show
 * documents' text (document, search, chat), not on the first visit; they ask for it as they mount,
 * at the same time as their data.
 */
export function loadMarkdown(): Promise<Renderer> {
  loading ??= import('../markdown/render').then((m) => {
    loaded = m;
    return m;
  });
  return loading;
}

/** The renderer once it has arrived; until then undefined, and the text is shown as it is. */
export function useMarkdown(): Renderer | undefined {
  const [renderer, setRenderer] = useState(loaded);
  useEffect(() => {
    if (renderer) return;
    let live = true;
    loadMarkdown().then(
      (m) => {
        if (live) setRenderer(m);
      },
      () => {
        // Not fetched (the server went away): the text stays as it is, which is still readable.
        loading = undefined;
      },
    );
    return () => {
      live = false;
    };
  }, [renderer]);
  return renderer;
}

/** Markdown rendered as blocks; the plain text (with the same `text` treatment) until the renderer is here. */
export function Markdown({
  source,
  className,
  ...options
}: { source: string; className?: string } & MarkdownOptions) {
  const renderer = useMarkdown();
  const body: ReactNode = renderer ? (
    renderer.renderMarkdown(source, options)
  ) : (
    <p className="md-plain">{options.text ? options.text(source) : source}</p>
  );
  return <div className={className ? `md ${className}` : 'md'}>{body}</div>;
}
