import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowList, isForbiddenAddress } from '../../src/adapters/web/address-policy.js';
import { acceptedContentType, GuardedFetcher } from '../../src/adapters/web/fetcher.js';
import { AddressGuard } from '../../src/adapters/web/guard.js';
import { DocumentFailure } from '../../src/errors.js';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    '::127.0.0.1',
    '::7f00:1',
    '::169.254.169.254',
    '::10.0.0.1',
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:192.168.1.1',
    'not-an-ip',
  ])('refuses %s', (ip) => expect(isForbiddenAddress(ip)).toBe(true));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '::ffff:0:808:808',
  ])('allows the public address %s', (ip) => expect(isForbiddenAddress(ip)).toBe(false));
});

describe('AllowList', () => {
  it('matches names, *.suffix wildcards and CIDR ranges', () => {
    const a = new AllowList(['wiki.corp', '*.intra.example', '10.20.0.0/16', '::1/128']);
    expect(a.allowsHost('WIKI.corp')).toBe(true);
    expect(a.allowsHost('docs.intra.example')).toBe(true);
    expect(a.allowsHost('intra.example.evil.com')).toBe(false);
    expect(a.allowsAddress('10.20.3.4')).toBe(true);
    expect(a.allowsAddress('10.21.0.1')).toBe(false);
    expect(a.allowsAddress('::1')).toBe(true);
    expect(new AllowList([]).allowsAddress('10.20.3.4')).toBe(false);
  });
});

describe('acceptedContentType', () => {
  it('takes documents and pages, not media or executables', () => {
    for (const t of [
      'text/html; charset=utf-8',
      'application/pdf',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      null,
    ]) {
      expect(acceptedContentType(t)).toBe(true);
    }
    for (const t of ['video/mp4', 'audio/mpeg', 'font/woff2', 'application/x-msdownload'])
      expect(acceptedContentType(t)).toBe(false);
  });
});

describe('GuardedFetcher and DNS rebinding', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((req, res) => res.end(`served ${req.headers.host}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const options = (
    resolve: (h: string) => Promise<{ address: string; family: number }[]>,
    allow: string[] = [],
  ) => ({
    guard: new AddressGuard(new AllowList(allow), resolve),
    maxBytes: 1024,
    timeoutMs: 5000,
    maxRedirects: 2,
    userAgent: 'test',
  });

  async function read(f: GuardedFetcher, url: string): Promise<string> {
    const r = await f.fetch(url, new AbortController().signal);
    let s = '';
    for await (const c of r.body) s += c;
    return s;
  }

  it('resolves a name once and connects to exactly the address it checked', async () => {
    // A rebinding resolver: a permitted address first, an internal one on every later question.
    const answers: string[] = [];
    const rebinding = async () => {
      const address = answers.length === 0 ? '127.0.0.1' : '10.0.0.1';
      answers.push(address);
      return [{ address, family: 4 }];
    };
    const f = new GuardedFetcher(options(rebinding, ['127.0.0.1/32']));
    expect(await read(f, `http://rebind.test:${port}/`)).toBe(`served rebind.test:${port}`);
    expect(answers).toEqual(['127.0.0.1']);
  });

  it('refuses a name when any of its addresses is internal', async () => {
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const f = new GuardedFetcher(options(mixed));
    const err = await f
      .fetch(`http://mixed.test:${port}/`, new AbortController().signal)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocumentFailure);
    expect((err as DocumentFailure).code).toBe('url_forbidden');
    // The internal address it found is not told.
    expect((err as DocumentFailure).message).toContain('resolves to a private, local or reserved address');
    expect((err as DocumentFailure).message).not.toContain('127.0.0.1');
  });

  it('describes a failed connection without the address it tried', async () => {
    // A port on loopback that nothing listens on: "connect ECONNREFUSED 127.0.0.1:<port>" inside.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const f = new GuardedFetcher(
      options(async () => [{ address: '127.0.0.1', family: 4 }], ['internal.test']),
    );
    const err = await f
      .fetch(`http://internal.test:${closedPort}/`, new AbortController().signal)
      .catch((e: unknown) => e);
    expect((err as DocumentFailure).code).toBe('fetch_failed');
    expect((err as DocumentFailure).message).toBe(
      `Could not fetch http://internal.test:${closedPort}/: the connection was refused.`,
    );
  });

  it('refuses literal internal addresses without asking DNS', async () => {
    let asked = false;
    const f = new GuardedFetcher(
      options(async () => {
        asked = true;
        return [];
      }),
    );
    for (const url of [
      `http://127.0.0.1:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]/',
    ]) {
      const err = await f.fetch(url, new AbortController().signal).catch((e: unknown) => e);
      expect((err as DocumentFailure).code, url).toBe('url_forbidden');
    }
    expect(asked).toBe(false);
  });
});
