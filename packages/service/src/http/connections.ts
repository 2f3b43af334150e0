import type { Server } from 'node:http';
import net, { type Socket } from 'node:net';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import { randomToken } from '../ids.js';

/** `::ffff:10.0.0.5` (an IPv4 client of a server listening on IPv6) is `10.0.0.5`. */
export function plainAddress(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

/**
 * What a per-address budget counts: an IPv4 address, or an IPv6 address's /64. One host (one
 * subscriber, one cloud machine) is given a whole /64 and may send from any of its 2^64 addresses,
 * so counting single IPv6 addresses would give it a fresh budget with every request.
 */
export function addressBucket(raw: string): string {
  const address = plainAddress(raw);
  if (!net.isIPv6(address)) return address;
  return `${prefix64(address)}::/64`;
}

/** The first four groups of an IPv6 address, however it is written (`::` anywhere, IPv4 tail, zone). */
function prefix64(address: string): string {
  const [plain] = address.split('%') as [string];
  let text = plain;
  const last = text.slice(text.lastIndexOf(':') + 1);
  if (last.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, text.length - last.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':');
}

/** Whether an address is one of the configured proxies (addresses or CIDR ranges, as validated by config). */
export function proxyMatcher(entries: string[]): (address: string) => boolean {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = net.isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (raw) => {
    const address = plainAddress(raw);
    return list.check(address, net.isIPv4(address) ? 'ipv4' : 'ipv6');
  };
}

/**
 * Headers by which a proxy says whom it relays: the standard `Forwarded` and `Via`, every
 * `X-Forwarded-*`, and the client-address headers of common proxies, load balancers and CDNs.
 */
const RELAY_HEADERS = new Set([
  'forwarded',
  'via',
  'x-real-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'x-original-forwarded-for',
  'x-envoy-external-address',
  'true-client-ip',
  'cf-connecting-ip',
  'cf-connecting-ipv6',
  'fastly-client-ip',
  'fly-client-ip',
  'x-appengine-user-ip',
  'x-azure-clientip',
]);

/**
 * Whether a proxy relayed the request, whichever proxy and whatever it wrote: the caller is then
 * whoever called the proxy, not the socket the request arrived on. (Header names come lower-cased.)
 */
export function relayedByProxy(headers: Record<string, unknown>): boolean {
  return Object.keys(headers).some((name) => name.startsWith('x-forwarded-') || RELAY_HEADERS.has(name));
}

/**
 * Fastify's options that end connections which never finish a request (slowloris) or sit idle: the
 * whole request within `requestTimeoutMs`, the headers within the body timeout (checked every second
 * or so, not Node's default of every 30 s), an idle keep-alive connection after its timeout. A
 * connection that sends nothing at all is ended by the headers timeout too.
 */
export function connectionTimeouts(server: Config['server'], requestTimeoutMs = server.requestTimeoutMs) {
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: server.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(server.bodyTimeoutMs, requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1000, server.bodyTimeoutMs),
    },
  };
}

/**
 * Caps the connections one client address holds open at once, so that one caller cannot take every
 * descriptor with connections that never finish a request (headers or bodies sent a byte at a time,
 * which the timeouts end only after a while). Proxies are exempt: all their clients share their address.
 * A connection over the cap gets a 429 and is closed.
 */
export function capConnectionsPerAddress(
  server: Server,
  max: number,
  exempt: (address: string) => boolean,
  warn: (address: string) => void,
): void {
  const open = new Map<string, number>();
  // One warning a minute at most: an operator learns of it (a proxy missing from TRUSTED_PROXIES
  // looks like this), and an attack cannot flood the log.
  let warnedAt = 0;
  const refusal = (() => {
    const e = errors.tooManyConnections(max);
    return (requestId: string) => {
      const body = JSON.stringify({ error: { code: e.code, message: e.message, requestId } });
      return [
        `HTTP/1.1 ${e.status} Too Many Requests`,
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        ...Object.entries(e.headers).map(([k, v]) => `${k}: ${v}`),
        `x-request-id: ${requestId}`,
        'connection: close',
        '',
        body,
      ].join('\r\n');
    };
  })();
  // Before the HTTP server's own listener: the refusal is written first and the socket closed as soon
  // as it is sent, so the server does not get to handle a request on it.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ? plainAddress(socket.remoteAddress) : undefined;
    if (!address || exempt(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.end(refusal(`req_${randomToken(10)}`), () => socket.destroy());
      if (Date.now() - warnedAt > 60_000) {
        warnedAt = Date.now();
        warn(address);
      }
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * Caps the connections a server holds at once, whoever opens them: the per-address cap does not stop
 * many addresses (an IPv6 prefix holds billions), and every connection is a descriptor the process
 * then lacks for its database, object store and parser. Node closes a connection over the cap as soon
 * as it is accepted, without a word: nothing is read from it and nothing stays open.
 */
export function capTotalConnections(server: Server, max: number, warn: () => void): void {
  server.maxConnections = max;
  let warnedAt = 0;
  server.on('drop', () => {
    if (Date.now() - warnedAt > 60_000) {
      warnedAt = Date.now();
      warn();
    }
  });
}
