/**
 * One large upload: a generated file streamed to POST /v1/ingest/bulk as multipart, produced piece by
 * piece so the client never holds it, while the server's RSS is sampled from just before the request
 * until its answer. The service is stopped right after, so the worker's parse of the file is not part
 * of the figure.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type RunningService, sampleRss } from './service.js';

const PIECE = 1024 * 1024;

/** `bytes` of printable text in 1 MiB pieces, each made fresh so nothing accumulates. */
function* generated(bytes: number): Generator<Buffer> {
  const line = Buffer.from('The quick brown fox jumps over the lazy dog while the load benchmark runs.\n');
  for (let sent = 0; sent < bytes; sent += PIECE) {
    const n = Math.min(PIECE, bytes - sent);
    const piece = Buffer.allocUnsafe(n);
    for (let o = 0; o < n; o += line.length) line.copy(piece, o, 0, Math.min(line.length, n - o));
    yield piece;
  }
}

export async function largeUpload(service: RunningService, bytes: number) {
  const boundary = `----docslurp-load-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="large.txt"\r\n` +
      'Content-Type: text/plain\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${service.url}/v1/ingest/bulk`);
  const clientRss0 = process.memoryUsage().rss;
  let clientPeak = clientRss0;
  const clientTimer = setInterval(() => {
    clientPeak = Math.max(clientPeak, process.memoryUsage().rss);
  }, 200);
  const rss = sampleRss(service.pid, 200);
  const t0 = performance.now();
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${service.key}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + bytes + tail.length,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const body = Readable.from(
      (function* () {
        yield head;
        yield* generated(bytes);
        yield tail;
      })(),
    );
    pipeline(body, req).catch(reject);
  });
  const ms = performance.now() - t0;
  const samples = rss.stop();
  clearInterval(clientTimer);
  if (answer.status !== 202) throw new Error(`large upload → ${answer.status}: ${answer.body.slice(0, 300)}`);
  const mibs = samples.map((s) => s.mib);
  const round = (n: number) => Number(n.toFixed(1));
  return {
    megabytes: round(bytes / 2 ** 20),
    seconds: round(ms / 1000),
    megabytesPerSecond: round(bytes / 2 ** 20 / (ms / 1000)),
    serverRssMiB: {
      before: round(mibs[0]!),
      peak: round(Math.max(...mibs)),
      growth: round(Math.max(...mibs) - mibs[0]!),
    },
    clientRssGrowthMiB: round((clientPeak - clientRss0) / 2 ** 20),
    rssSamples: samples.map((s) => [s.ms, round(s.mib)]),
  };
}
