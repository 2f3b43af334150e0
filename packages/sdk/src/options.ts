import { DocSlurpError } from './errors.js';
import { isBrowser, readEnv } from './runtime.js';
import { type FetchLike, type TransportConfig, validateMaxRetries, validateTimeout } from './transport.js';

export interface ClientOptions {
  /** The service origin, e.g. `https://docs.example.com`. Default: the `SERVICE_URL` environment variable. */
  apiUrl?: string;
  /** An API key (`dsk_…`). Default: the `SERVICE_API_KEY` environment variable. */
  apiKey?: string;
  /** The `fetch` to use; default: the global one. */
  fetch?: FetchLike;
  /** Time limit of each request attempt in ms. Default: 60 s, and 10 minutes for uploads. */
  timeoutMs?: number;
  /** Automatic retries of transient failures, 0 to 2. Default: 2. */
  maxRetries?: number;
  /**
   * Serve every call as one of the account's users (id or e-mail), as an application does for its
   * signed-in people: the key needs the `act-as` scope. See also `client.asUser(…)`.
   */
  onBehalfOf?: string;
  /**
   * Allow an API key in a browser. Anyone who can open the page can read the key, so the default is to
   * refuse; browser apps should call their own server, which holds the key (see the README).
   */
  dangerouslyAllowBrowser?: boolean;
}

/** A user as `onBehalfOf` names one: an id or an e-mail, on one line. */
export function userName(value: string): string {
  if (typeof value !== 'string' || value.trim() === '' || /[\r\n]/.test(value)) {
    throw new DocSlurpError('onBehalfOf must be a user id or e-mail address.', { code: 'invalid_option' });
  }
  return value.trim();
}

/** The client's options checked once, with their defaults filled in: what its transport needs. */
export function transportConfig(options: ClientOptions): TransportConfig {
  const apiUrl = options.apiUrl ?? readEnv('SERVICE_URL');
  const apiKey = options.apiKey ?? readEnv('SERVICE_API_KEY');
  const browser = isBrowser();
  if (!apiUrl) {
    throw new DocSlurpError('No service URL: pass apiUrl or set the SERVICE_URL environment variable.', {
      code: 'missing_api_url',
    });
  }
  if (browser && apiKey && !options.dangerouslyAllowBrowser) {
    throw new DocSlurpError(
      'Refusing to use an API key in a browser, where every visitor of the page can read it. ' +
        'Call the service from your server instead (a proxy route that checks the user and holds the key), ' +
        'or pass dangerouslyAllowBrowser: true if the key is truly meant to be public.',
      { code: 'browser_not_allowed' },
    );
  }
  // In a browser the client may talk to the app's own proxy route, which adds the key server-side.
  if (!apiKey && !browser) {
    throw new DocSlurpError('No API key: pass apiKey or set the SERVICE_API_KEY environment variable.', {
      code: 'missing_api_key',
    });
  }
  const relative = apiUrl.startsWith('/');
  if (!(relative && browser) && !/^https?:\/\/[^/]/i.test(apiUrl)) {
    throw new DocSlurpError(
      `apiUrl must be an http(s) URL such as https://docs.example.com, got "${apiUrl}".`,
      {
        code: 'invalid_option',
      },
    );
  }
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (!fetchImpl) {
    throw new DocSlurpError('This runtime has no global fetch; pass one in the fetch option.', {
      code: 'invalid_option',
    });
  }
  // A loop, not /\/+$/: that pattern tries a run of slashes again from each of them.
  let end = apiUrl.length;
  while (end > 0 && apiUrl[end - 1] === '/') end--;
  return {
    baseUrl: apiUrl.slice(0, end),
    apiKey,
    onBehalfOf: options.onBehalfOf === undefined ? undefined : userName(options.onBehalfOf),
    fetch: fetchImpl,
    timeoutMs: options.timeoutMs === undefined ? undefined : validateTimeout(options.timeoutMs, 'timeoutMs'),
    maxRetries: validateMaxRetries(options.maxRetries ?? 2, 'createDocSlurpClient'),
  };
}
