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

export interface Action {
  /**
   * Runs `act`. On success it reloads what the screen shows and, with `done`, says so in the screen's
   * note; on failure the note shows the error under `failed`. Either way the note takes the keyboard's
   * focus when it appears, so that focus never drops to the page after the button that acted goes
   * (a deleted row, a confirmation, a finished form). Resolves whether it succeeded.
   */
  run(act: () => Promise<unknown>, words?: { done?: string; failed?: string }): Promise<boolean>;
  busy: boolean;
  /** The latest outcome; `seq` changes with every one, so that the same words said twice are said again. */
  outcome: { seq: number; error?: unknown; title?: string; done?: string } | undefined;
  clear(): void;
}

/** One screen's actions (delete, revoke, sync…): their busy state, their errors, what they did. */
export function useAction(reload?: () => void): Action {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Action['outcome']>();
  const seq = useRef(0);
  const reloadRef = useRef(reload);
  reloadRef.current = reload;
  const run = useCallback<Action['run']>(async (act, words = {}) => {
    setBusy(true);
    try {
      await act();
      seq.current++;
      setOutcome(words.done ? { seq: seq.current, done: words.done } : undefined);
      reloadRef.current?.();
      return true;
    } catch (error) {
      seq.current++;
      setOutcome({ seq: seq.current, error, ...(words.failed ? { title: words.failed } : {}) });
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => setOutcome(undefined), []);
  return { run, busy, outcome, clear };
}
