import net from 'node:net';

export interface RawAnswer {
  /** 0 when the server sent nothing before the connection ended or the wait ran out. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (rather than the wait running out). */
  closed: boolean;
}

export interface RawRequestOptions {
  host?: string;
  /** Source address of the connection. */
  localAddress?: string;
  /** How long to wait for an answer; the socket is destroyed after it. */
  waitMs?: number;
  /** Destroy the socket right after writing, without waiting for an answer. */
  abandon?: boolean;
}

/** Parses the first HTTP/1.1 response in `text` (Content-Length framed, as this server answers). */
export function parseAnswer(text: string, closed: boolean): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/') || end === -1) return { status: 0, headers: {}, body: '', closed };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? Number.NaN);
  const rest = text.slice(end + 4);
  return {
    status: Number(statusLine!.split(' ')[1]),
    headers,
    body: Number.isNaN(length) ? rest : rest.slice(0, length),
    closed,
  };
}

/**
 * Writes `request` (head and body, exactly as given, however malformed) on a fresh socket and
 * reads until the first complete answer, the server closing, or `waitMs`.
 */
export function rawRequest(port: number, request: string | Buffer, options: RawRequestOptions = {}) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const socket = net.connect({
      port,
      host: options.host ?? '127.0.0.1',
      localAddress: options.localAddress,
    });
    let text = '';
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(text, closed));
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 10_000);
    socket.on('error', (err) => {
      if (text) finish(true);
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const answer = parseAnswer(text, false);
      if (
        answer.status &&
        Buffer.byteLength(answer.body, 'latin1') >= Number(answer.headers['content-length'] ?? 0)
      )
        finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      socket.write(request);
      if (options.abandon) setTimeout(() => finish(false), 50);
    });
  });
}

/** A multipart body with the given parts; `truncateAt` cuts it (no closing boundary then). */
export function multipartBody(
  boundary: string,
  parts: { name: string; filename?: string; type?: string; content: string | Buffer }[],
): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export function postHead(path: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** A complete request with an optional JSON body, on a fresh socket (so its source address can be chosen). */
export function jsonRequest(
  port: number,
  method: string,
  path: string,
  options: RawRequestOptions & { body?: unknown; headers?: Record<string, string> } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies and assert on their shape.
): Promise<RawAnswer & { json: any }> {
  const body = options.body === undefined ? '' : JSON.stringify(options.body);
  const headers = {
    host: 'localhost',
    ...(body
      ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
      : {}),
    ...options.headers,
  };
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return rawRequest(port, head + body, options).then((a) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(a.body);
    } catch {
      parsed = undefined;
    }
    return { ...a, json: parsed };
  });
}

export interface SlowAnswer extends RawAnswer {
  /** When the server closed the connection, in ms after the first write; undefined if it never did. */
  closedAfterMs: number | undefined;
}

/**
 * A client that writes `first`, then `drip()` every `intervalMs` (a byte at a time, as a slowloris
 * attack does) until the server closes the connection or `maxMs` pass.
 */
export function slowRequest(
  port: number,
  first: string | Buffer,
  drip: () => string | Buffer,
  options: { intervalMs?: number; maxMs?: number; host?: string; localAddress?: string } = {},
): Promise<SlowAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      port,
      host: options.host ?? '127.0.0.1',
      localAddress: options.localAddress,
    });
    let text = '';
    let started = 0;
    let closedAfterMs: number | undefined;
    let ticker: NodeJS.Timeout | undefined;
    const finish = () => {
      clearInterval(ticker);
      clearTimeout(limit);
      socket.destroy();
      resolve({ ...parseAnswer(text, closedAfterMs !== undefined), closedAfterMs });
    };
    const limit = setTimeout(finish, options.maxMs ?? 10_000);
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAfterMs = Date.now() - started;
      finish();
    });
    socket.on('connect', () => {
      started = Date.now();
      socket.write(first);
      ticker = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(drip());
      }, options.intervalMs ?? 250);
    });
    socket.once('error', (err) => {
      if (!started) reject(err);
    });
  });
}

/** Opens a connection and keeps it, sending nothing, until `close()`. */
export async function idleConnection(port: number, options: { host?: string; localAddress?: string } = {}) {
  const socket = net.connect({ port, host: options.host ?? '127.0.0.1', localAddress: options.localAddress });
  let text = '';
  socket.on('data', (d) => {
    text += d.toString('latin1');
  });
  socket.on('error', () => {});
  await new Promise((r) => socket.once('connect', r));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    socket,
    /** What the server sent, parsed once it closed the connection (or `waitMs` passed). */
    async answer(waitMs = 5_000): Promise<RawAnswer> {
      const ended = await Promise.race([
        closed.then(() => true),
        new Promise((r) => setTimeout(() => r(false), waitMs)),
      ]);
      return parseAnswer(text, ended === true);
    },
    close: () => socket.destroy(),
  };
}
