import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, with its raw body (what was signed). */
export interface ReceivedHook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when it arrived. */
  at: number;
}

/** How the receiver answers the `nth` request (1-based) to a path: a status, or hold it unanswered. */
export type Answer = (path: string, nth: number) => number | 'hold';

export interface Receiver {
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  port: number;
  received(path?: string): ReceivedHook[];
  /** Resolves once `count` requests to `path` have arrived; fails after `timeoutMs`. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

/** A webhook receiver on loopback: records every request and answers as `answer` says (200 by default). */
export async function startReceiver(answer: Answer = () => 200, host = '127.0.0.1'): Promise<Receiver> {
  const all: ReceivedHook[] = [];
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      );
      all.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
      const nth = (counts.get(path) ?? 0) + 1;
      counts.set(path, nth);
      const status = answer(path, nth);
      if (status !== 'hold') res.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${nth}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  const received = (path?: string) => all.filter((h) => path === undefined || h.path === path);
  return {
    port,
    url: (path) => `http://${host}:${port}${path}`,
    received,
    async waitFor(path, count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received(path).length < count) {
        if (Date.now() > deadline)
          throw new Error(`${path} got ${received(path).length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received(path);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
