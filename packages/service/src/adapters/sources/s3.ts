import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { FetchedResource } from '../../domain/ports.js';
import { DocumentFailure, errors, UNREACHABLE_ERRNOS } from '../../errors.js';
import { itemFilter } from '../../sources/globs.js';
import {
  type ListedItem,
  S3Settings,
  type SourceAccess,
  type SourceConnector,
  SourceFailure,
} from '../../sources/model.js';
import { tooLarge, unreadableByName } from '../../sources/readable.js';
import { type AddressGuard, ForbiddenHost, guardedLookup } from '../web/guard.js';

/** Most objects one sync lists (a prefix with more is listed up to here; the rest waits for a narrower prefix). */
const MAX_OBJECTS = 100_000;

function errorName(err: unknown): string {
  return (err as { Code?: string }).Code ?? (err as { name?: string }).name ?? 'Error';
}

function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** A bucket's refusal or absence, or the network, as the code the sync fails with. */
export function syncFailureOf(err: unknown, bucket: string): SourceFailure {
  if (err instanceof SourceFailure) return err;
  const name = errorName(err);
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'Forbidden'].includes(name))
    return new SourceFailure('source_credentials_refused', `The bucket refused the credentials (${name}).`);
  if (name === 'NoSuchBucket') return new SourceFailure('source_missing', `There is no bucket "${bucket}".`);
  const chain = causeChain(err);
  if (chain.some((e) => e instanceof ForbiddenHost))
    return new SourceFailure(
      'source_forbidden',
      'The endpoint resolves to a private, local or reserved address; a self-hoster can allow it with URL_FETCH_ALLOW_HOSTS.',
    );
  const code = chain.map((e) => (e as { code?: string }).code).find((c) => c && UNREACHABLE_ERRNOS.has(c));
  if (code || name === 'TimeoutError')
    return new SourceFailure(
      'source_unreachable',
      `The bucket's endpoint cannot be reached (${code ?? name}).`,
    );
  return new SourceFailure('sync_failed', `Listing the bucket failed (${name}).`);
}

/**
 * An S3-compatible bucket prefix: listed with ListObjectsV2 (ETag and size tell changes), objects read
 * with GetObject. The client connects only to addresses the request-forgery guard vetted, and never
 * signs with the service's own credentials: a source without keys reads a public bucket anonymously.
 */
export class S3Connector implements SourceConnector {
  constructor(
    private readonly options: {
      guard: AddressGuard;
      timeoutMs: number;
      maxBytes: number;
      /** Whether a source may sign with the server's own identity (SOURCE_S3_SERVER_CREDENTIALS). */
      allowServerCredentials?: boolean;
    },
  ) {}

  async validate(settings: Record<string, unknown>): Promise<void> {
    const s = S3Settings.parse(settings);
    if (s.serverCredentials && !this.options.allowServerCredentials)
      throw errors.invalidRequest(
        "serverCredentials signs with the server's own AWS identity, which this server does not lend to sources (SOURCE_S3_SERVER_CREDENTIALS).",
      );
  }

  /**
   * The client for a source. Its endpoint's host is vetted first: a connection to an IP address
   * never asks the lookup, so the lookup alone would let `http://10.0.0.5` through.
   */
  private async client(source: SourceAccess): Promise<{ client: S3Client; settings: S3Settings }> {
    const settings = S3Settings.parse(source.settings);
    if (settings.serverCredentials && !this.options.allowServerCredentials)
      throw new SourceFailure(
        'source_forbidden',
        "The source asks for the server's own AWS identity, which this server no longer lends (SOURCE_S3_SERVER_CREDENTIALS).",
      );
    if (settings.endpoint) await this.options.guard.vet(new URL(settings.endpoint).hostname);
    const lookup = guardedLookup(this.options.guard);
    const creds = source.credentials;
    const client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      maxAttempts: 2,
      requestHandler: {
        httpAgent: new http.Agent({ lookup }),
        httpsAgent: new https.Agent({ lookup }),
        connectionTimeout: this.options.timeoutMs,
        requestTimeout: this.options.timeoutMs,
      },
      // Without keys the client is anonymous: fixed empty credentials (so the SDK never runs its
      // default chain: the environment, files, container and instance metadata at 169.254.169.254,
      // outside the request-forgery guard) and requests sent unsigned.
      ...(creds?.accessKeyId && creds.secretAccessKey
        ? { credentials: { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey } }
        : settings.serverCredentials
          ? {} // The SDK's default chain, as the operator allowed and the source asked.
          : {
              credentials: { accessKeyId: '', secretAccessKey: '' },
              signer: { sign: async (request) => request },
            }),
    });
    return { client, settings };
  }

  async list(source: SourceAccess, _previous: unknown, signal: AbortSignal): Promise<ListedItem[]> {
    const settings = S3Settings.parse(source.settings);
    const { client } = await this.client(source).catch((err: unknown) => {
      throw syncFailureOf(err, settings.bucket);
    });
    const items: ListedItem[] = [];
    const wanted = itemFilter(settings.include, settings.exclude);
    try {
      let token: string | undefined;
      do {
        const page = await client
          .send(
            new ListObjectsV2Command({
              Bucket: settings.bucket,
              Prefix: settings.prefix,
              ContinuationToken: token,
            }),
            { abortSignal: signal },
          )
          .catch((err: unknown) => {
            if (signal.aborted) throw err;
            throw syncFailureOf(err, settings.bucket);
          });
        for (const o of page.Contents ?? []) {
          // Folder markers (keys ending in "/") hold nothing to read.
          if (!o.Key || o.Key.endsWith('/')) continue;
          // Patterns are matched below the prefix.
          if (!wanted(o.Key.startsWith(settings.prefix) ? o.Key.slice(settings.prefix.length) : o.Key))
            continue;
          const filename = o.Key.split('/').pop()!;
          items.push({
            key: o.Key,
            filename,
            url: null,
            fingerprint: { etag: o.ETag?.replace(/"/g, '') ?? null, sizeBytes: o.Size ?? null },
            // A listing reads no bytes: the name and the listed size tell what no worker reads.
            skipReason:
              (o.Size ?? 0) > this.options.maxBytes
                ? tooLarge(this.options.maxBytes)
                : unreadableByName(filename),
          });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token && items.length < MAX_OBJECTS);
    } finally {
      client.destroy();
    }
    return items;
  }

  async open(source: SourceAccess, key: string, signal: AbortSignal): Promise<FetchedResource> {
    const settings = S3Settings.parse(source.settings);
    const { client } = await this.client(source).catch((err: unknown) => {
      const failure = syncFailureOf(err, settings.bucket);
      throw new DocumentFailure('url_forbidden', `"${key}" could not be read: ${failure.message}`);
    });
    try {
      const res = await client.send(new GetObjectCommand({ Bucket: settings.bucket, Key: key }), {
        abortSignal: signal,
      });
      if ((res.ContentLength ?? 0) > this.options.maxBytes)
        throw new DocumentFailure(
          'file_too_large',
          `"${key}" is ${res.ContentLength} bytes; the limit is ${this.options.maxBytes}.`,
        );
      const body = res.Body as Readable;
      body.on('close', () => client.destroy());
      return {
        body,
        contentType: res.ContentType ?? null,
        finalUrl: `s3://${settings.bucket}/${key}`,
        filename: key.split('/').pop()!,
      };
    } catch (err) {
      client.destroy();
      if (err instanceof DocumentFailure) throw err;
      const failure = syncFailureOf(err, settings.bucket);
      throw new DocumentFailure(
        errorName(err) === 'NoSuchKey' ? 'original_missing' : 'fetch_failed',
        `"${key}" could not be read: ${failure.message}`,
      );
    }
  }
}
