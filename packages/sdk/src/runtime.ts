/**
 * The few places where the SDK looks at its host. Everything else uses only web-standard globals, so one
 * build runs in Node 18+, Deno, Bun, edge runtimes and browsers.
 */

interface HostGlobals {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { get(name: string): string | undefined } };
  window?: { document?: unknown };
  crypto?: { getRandomValues?<T extends Uint8Array>(array: T): T };
}

const host = globalThis as HostGlobals;

/** An environment variable where the runtime has them (Node, Bun, Deno); undefined elsewhere. */
export function readEnv(name: string): string | undefined {
  try {
    const value = host.process?.env?.[name] ?? host.Deno?.env?.get(name);
    return value?.trim() || undefined;
  } catch {
    // Deno without --allow-env throws rather than answering undefined.
    return undefined;
  }
}

/** True in a page's JavaScript, where anything the client holds is readable by the page's visitors. */
export function isBrowser(): boolean {
  return typeof host.window === 'object' && host.window !== null && typeof host.window.document === 'object';
}

/** A request id in the form the server accepts (`[\w.:-]{1,64}`), so client and server logs share it. */
export function newRequestId(): string {
  const bytes = new Uint8Array(12);
  if (host.crypto?.getRandomValues) host.crypto.getRandomValues(bytes);
  // Node 18 has no global `crypto`; a request id identifies, it protects nothing.
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return `sdk_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A controller that also aborts when `parent` aborts (with the parent's reason). AbortSignal.any would
 * do this, but Node 18 lacks it. Call `release` when done so a long-lived parent does not keep listeners.
 */
export function linkedController(parent: AbortSignal | undefined): {
  controller: AbortController;
  release: () => void;
} {
  const controller = new AbortController();
  if (!parent) return { controller, release: () => {} };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, release: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { controller, release: () => parent.removeEventListener('abort', onAbort) };
}
