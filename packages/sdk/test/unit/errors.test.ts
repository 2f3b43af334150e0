import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/errors.js';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createDocSlurpClient,
  DocSlurpError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  UnsupportedMediaTypeError,
} from '../../src/index.js';
import { apiError, json, scriptedFetch } from '../support/fake-fetch.js';

function clientAnswering(response: Response) {
  const fake = scriptedFetch(response);
  return createDocSlurpClient({
    apiUrl: 'http://svc.test',
    apiKey: 'dsk_test',
    fetch: fake.fetch,
    maxRetries: 0,
  });
}

describe('one error class per status family', () => {
  it.each([
    [400, 'invalid_request', BadRequestError],
    [401, 'invalid_api_key', AuthenticationError],
    [403, 'insufficient_scope', PermissionDeniedError],
    [404, 'run_not_found', NotFoundError],
    [408, 'request_timeout', RequestTimeoutError],
    [409, 'invalid_run_state', ConflictError],
    [413, 'file_too_large', PayloadTooLargeError],
    [429, 'rate_limited', RateLimitError],
    [500, 'internal_error', ServerError],
    [503, 'service_unavailable', ServerError],
  ] as const)('%i %s → %o', async (status, code, ErrorClass) => {
    const client = clientAnswering(apiError(status, code, {}, `message for ${code}`));
    const error = await client.getRun('run_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(DocSlurpError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      status,
      code,
      requestId: `req_${code}`,
      message: `message for ${code}`,
      name: ErrorClass.name,
    });
    // Classes of other families do not match, so `instanceof` checks can be ordered freely.
    for (const Other of [NotFoundError, AuthenticationError, ServerError, RateLimitError]) {
      if (Other !== ErrorClass) expect(error).not.toBeInstanceOf(Other);
    }
  });

  it('uses the base APIError for a status without a family of its own', async () => {
    const error = await clientAnswering(apiError(405, 'method_not_allowed'))
      .getRun('run_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('gives a refused upload its files and the supported formats (415)', async () => {
    const files = [{ index: 1, filename: 'a.zip', code: 'unsupported_media_type', reason: 'a zip archive' }];
    const body = {
      error: {
        code: 'unsupported_file_format',
        message: 'm',
        requestId: 'req_1',
        files,
        supportedFormats: ['PDF'],
      },
    };
    const error = await clientAnswering(json(415, body))
      .upload({ files: [{ filename: 'a.zip', data: 'PK' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(error).toMatchObject({
      status: 415,
      code: 'unsupported_file_format',
      files,
      supportedFormats: ['PDF'],
    });
    const other = await clientAnswering(apiError(415, 'unsupported_content_type'))
      .getRun('run_1')
      .catch((e: unknown) => e);
    expect(other).toMatchObject({ constructor: UnsupportedMediaTypeError, files: [], supportedFormats: [] });
  });

  it('describes an error body that is not the API’s (a proxy’s HTML page)', async () => {
    const html = new Response('<html><body>502 Bad Gateway</body></html>', {
      status: 502,
      headers: { 'content-type': 'text/html', 'x-request-id': 'req_from_header' },
    });
    const error = await clientAnswering(html)
      .getRun('run_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 502, code: 'http_502', requestId: 'req_from_header' });
    expect((error as Error).message).toContain('502 Bad Gateway');
  });

  it('falls back to the request id the SDK sent when the answer has none', async () => {
    const fake = scriptedFetch(new Response('', { status: 500 }));
    const client = createDocSlurpClient({
      apiUrl: 'http://svc.test',
      apiKey: 'k',
      fetch: fake.fetch,
      maxRetries: 0,
    });
    const error = await client.getRun('run_1', { requestId: 'mine-1' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, code: 'http_500', requestId: 'mine-1' });
  });

  it('keeps the response headers on the error', async () => {
    const error = (await clientAnswering(apiError(429, 'rate_limited', { 'retry-after': '7' }))
      .search({ workspaceId: 'ws', q: 'q' })
      .catch((e: unknown) => e)) as RateLimitError;
    expect(error.headers.get('retry-after')).toBe('7');
    expect(error.retryAfterMs).toBe(7000);
  });

  it('reports a 200 answer that is not JSON as invalid_response', async () => {
    const error = await clientAnswering(new Response('<html>login page</html>', { status: 200 }))
      .getRun('run_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DocSlurpError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it('parses a successful JSON answer', async () => {
    await expect(clientAnswering(json(200, { id: 'run_1' })).getRun('run_1')).resolves.toEqual({
      id: 'run_1',
    });
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');
  it.each([
    ['5', 5000],
    ['0', 0],
    ['1.5', 1500],
    ['Sun, 01 Mar 2026 10:00:30 GMT', 30_000],
    ['Sun, 01 Mar 2026 09:59:00 GMT', 0],
    ['soon', undefined],
    ['-3', undefined],
  ])('%s → %s ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
  it('absent → undefined', () => expect(parseRetryAfter(null, now)).toBeUndefined());
});
