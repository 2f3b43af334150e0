import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DependencyUnavailable } from '../../errors.js';
import { randomToken } from '../../ids.js';
import { withoutTrailingSlashes } from '../../strings.js';
import { describeS3Error } from './s3.js';

/** What an operator reads when the index's store would lose commits, and what to do about it. */
export function conditionalWritesIgnored(where: string, detail: string): string {
  return (
    `object storage ignores conditional writes at ${where} (${detail}): concurrent search-index ` +
    'commits would overwrite each other and lose rows, so this process refuses to write the index. ' +
    'Use a store that honours "If-None-Match: *" (AWS S3; MinIO with all its drives healthy), or ' +
    "LanceDB's DynamoDB commit store (INDEX_URI=s3+ddb://<bucket>/lancedb?ddbTableName=<table>)"
  );
}

/** The store answered, and would lose index commits: unlike an outage, waiting will not fix it. */
export class ConditionalWritesIgnored extends DependencyUnavailable {
  constructor(message: string) {
    super('objectStorage', message);
    this.name = 'ConditionalWritesIgnored';
  }
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/**
 * LanceDB commits a table version with a create-only PUT (`If-None-Match: *`); of two writers that
 * race for the same version, the store must refuse the second. This writes one new key that way
 * twice: the first must be stored, the second refused with 412. A store that stores both (or does not
 * know the header) fails with DependencyUnavailable naming the problem. The key is removed after.
 */
export async function probeConditionalWrites(
  client: S3Client,
  bucket: string,
  prefix: string,
): Promise<void> {
  const key = `${withoutTrailingSlashes(prefix)}/_docslurp_commit_probe/${Date.now()}-${randomToken(8)}`;
  const where = `s3://${bucket}/${key}`;
  const put = (body: string) =>
    client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, IfNoneMatch: '*' }));
  try {
    try {
      await put('first');
    } catch (err) {
      // A store that rejects the header itself would fail every commit loudly; still say why.
      if (statusOf(err) === 501 || (err as { name?: string }).name === 'NotImplemented')
        throw new ConditionalWritesIgnored(
          conditionalWritesIgnored(where, 'the create-only PUT was refused as not implemented'),
        );
      throw describeS3Error(err, bucket);
    }
    let second: unknown;
    try {
      await put('second');
    } catch (err) {
      second = err;
    }
    const status = second === undefined ? 200 : statusOf(second);
    // 409 is what S3 answers when the two PUTs overlap; either way the second one did not land.
    if (status === 412 || status === 409) return;
    if (second !== undefined && status === undefined) throw describeS3Error(second, bucket);
    throw new ConditionalWritesIgnored(
      conditionalWritesIgnored(
        where,
        `a second create-only PUT of one key answered ${status} instead of 412`,
      ),
    );
  } finally {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => {});
  }
}

/**
 * Whether the search index's store can be written safely, as last probed. `check()` probes now (for
 * `/ready` and at worker start); `assertWritable()` is called before every index write and probes
 * again when the last answer is older than `maxAgeMs`, so a store that starts ignoring the header
 * while the process runs (MinIO losing read quorum) stops writes within that time.
 */
export class ConditionalWriteCheck {
  private last: { at: number; error: unknown } | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly probe: (() => Promise<void>) | undefined,
    private readonly maxAgeMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when nothing is probed: a local folder, or commits arbitrated by DynamoDB (`s3+ddb://`). */
  get skipped(): boolean {
    return this.probe === undefined;
  }

  check(): Promise<void> {
    const probe = this.probe;
    if (!probe) return Promise.resolve();
    // Concurrent callers (readiness probes, consumers) share one probe.
    this.inFlight ??= probe()
      .then(
        () => {
          this.last = { at: this.now(), error: undefined };
        },
        (err: unknown) => {
          this.last = { at: this.now(), error: err };
          throw err;
        },
      )
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  async assertWritable(): Promise<void> {
    const last = this.last;
    if (last && last.error === undefined && this.now() - last.at < this.maxAgeMs) return;
    await this.check();
  }
}
