import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

/**
 * A small router over the History API: every screen has a real URL (bookmarkable, reloadable: the
 * server answers any console URL with the page), and links change screens without a reload.
 */

const CHANGE = 'docslurp:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(CHANGE, onChange);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

export interface Location {
  path: string;
  params: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  return { path: url.pathname, params: url.searchParams };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
  if (!options.replace) window.scrollTo(0, 0);
}

export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(e);
    // Let the browser handle new tabs, downloads and modified clicks.
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a {...rest} href={to} onClick={onClick} />;
}

/** Matches `path` against a pattern such as `/workspaces/:id/search`; the named parts, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const re = new RegExp(
    `^${pattern.replace(/:(\w+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}/?$`,
  );
  const m = re.exec(path);
  if (!m) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1] ?? '')]));
}
