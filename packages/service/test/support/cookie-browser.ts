import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** An answer as the browser below keeps it: status, headers, and the body read whole. */
export interface BrowserAnswer {
  status: number;
  headers: Headers;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** What Chromium and Firefox send for a page navigation. */
const NAVIGATION_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/**
 * A browser for sign-in tests: a cookie jar per host, redirects followed one by one so that each can
 * be looked at. `ca` is trusted for https (a test provider's own certificate), as a browser would
 * once its certificate authority is installed.
 */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  constructor(private readonly ca?: string) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<BrowserAnswer> {
    const u = new URL(url);
    const jar = this.jars.get(u.host) ?? new Map<string, string>();
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.fetch(u, { ...headers, ...(cookie ? { cookie } : {}) });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, ...value] = pair!.split('=');
      const v = value.join('=');
      if (v === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(set)) jar.delete(name!.trim());
      else jar.set(name!.trim(), v);
    }
    this.jars.set(u.host, jar);
    return res;
  }

  /**
   * Follows redirects from `url` until `stop` says so (or an answer is not a redirect), as a page
   * navigation: asking for HTML, as browsers do, so the console's screens answer with its page.
   */
  async follow(
    url: string,
    stop: (url: string) => boolean = () => false,
  ): Promise<{ url: string; res?: BrowserAnswer }> {
    let current = url;
    for (let hops = 0; hops < 20; hops++) {
      if (stop(current)) return { url: current };
      const res = await this.get(current, { accept: NAVIGATION_ACCEPT });
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url: current, res };
      await res.text();
      current = new URL(location, current).toString();
    }
    throw new Error('too many redirects');
  }

  cookie(host: string, name: string): string | undefined {
    return this.jars.get(host)?.get(name);
  }

  private fetch(url: URL, headers: Record<string, string>): Promise<BrowserAnswer> {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { headers, ...(this.ca ? { ca: this.ca } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v === undefined) continue;
            for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: out,
            text: async () => body,
            json: async () => JSON.parse(body),
          });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }
}
