import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * Runs `load` when `deps` change and keeps its latest result. `refresh(data)` says after how many ms to
 * load again (a run still processing), or undefined to stop; the screen is not blanked meanwhile.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
  refresh?: (data: T) => number | undefined,
): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to load again.
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const data = await loadRef.current(controller.signal);
        if (controller.signal.aborted) return;
        setState({ data, error: undefined, loading: false });
        const after = refreshRef.current?.(data);
        if (after !== undefined) timer = setTimeout(run, after);
      } catch (error) {
        if (controller.signal.aborted) return;
        setState((s) => ({ data: s.data, error, loading: false }));
      }
    };
    setState((s) => ({ ...s, loading: true }));
    void run();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** The page's title names the screen (and what it shows), so tabs, history and screen readers can tell them apart. */
export function useTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · DocSlurp` : 'DocSlurp';
  }, [title]);
}
