import { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  type DeleteObjectsCommandOutput,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ObjectStore } from '../../domain/ports.js';
import { DependencyUnavailable, UNREACHABLE_ERRNOS } from '../../errors.js';

export interface S3ObjectStoreOptions {
  bucket: string;
  region: string;
  endpoint: string | undefined;
  forcePathStyle: boolean;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
}

export interface ObjectListing {
  key: string;
  size: number;
}

/** Upload parts of 8 MiB, four in flight: a streamed upload holds at most about 32 MiB in memory. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;

function errorCode(err: unknown): string | undefined {
  if (err instanceof S3ServiceException) return err.name;
  return (err as { name?: string; Code?: string }).Code ?? (err as { name?: string }).name;
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isMissingKey(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'NoSuchKey' || code === 'NotFound' || (statusOf(err) === 404 && code !== 'NoSuchBucket');
}

/** What an operator reads when the object store refuses our keys, whichever client met it. */
export function credentialsRefused(code: string): string {
  return `object storage refused the credentials (${code}): AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must match the object store's keys`;
}

/**
 * Rewords the errors an operator can act on (wrong keys, missing bucket, unreachable endpoint):
 * they surface in `/ready`, in worker logs and in the backup scripts.
 */
export function describeS3Error(err: unknown, bucket: string): Error {
  const code = errorCode(err);
  const detail = (err as Error).message || String(err);
  // Refused keys and a missing bucket are not the request's fault either: 503s that name the cause,
  // and the service recovers once the operator fixes the store, without a restart.
  if (code === 'InvalidAccessKeyId' || code === 'SignatureDoesNotMatch' || code === 'AccessDenied') {
    return new DependencyUnavailable('objectStorage', credentialsRefused(code), { cause: err });
  }
  if (code === 'NoSuchBucket') {
    return new DependencyUnavailable(
      'objectStorage',
      `object storage has no bucket "${bucket}" (run migrate, which creates it)`,
      { cause: err },
    );
  }
  const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
  if (cause !== undefined && UNREACHABLE_ERRNOS.has(cause)) {
    return new DependencyUnavailable('objectStorage', `object storage is unreachable (${cause}): ${detail}`, {
      cause: err,
    });
  }
  return err instanceof Error ? err : new Error(detail);
}

/** Objects in one S3 bucket (MinIO in the stack). Keys are used as given. */
export class S3ObjectStore implements ObjectStore {
  readonly client: S3Client;
  readonly bucket: string;

  constructor(options: S3ObjectStoreOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      // Without explicit keys the SDK's default chain applies (instance roles, AWS_PROFILE…).
      ...(options.accessKeyId && options.secretAccessKey
        ? {
            credentials: {
              accessKeyId: options.accessKeyId,
              secretAccessKey: options.secretAccessKey,
            },
          }
        : {}),
    });
  }

  async put(key: string, body: Readable | Buffer | string, contentType?: string): Promise<void> {
    try {
      if (body instanceof Readable) {
        // Multipart for large bodies, a single PUT for small ones; the stream is never held whole.
        const upload = new Upload({
          client: this.client,
          params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType },
          partSize: PART_SIZE,
          queueSize: QUEUE_SIZE,
          leavePartsOnError: false,
        });
        await upload.done();
        return;
      }
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
      );
    } catch (err) {
      // A failed source stream (client went away, size limit) must not read as a storage fault.
      if (body instanceof Readable && body.errored) throw body.errored;
      throw describeS3Error(err, this.bucket);
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.Body as Readable;
    } catch (err) {
      if (isMissingKey(err)) return undefined;
      throw describeS3Error(err, this.bucket);
    }
  }

  async getBuffer(key: string): Promise<Buffer | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!out.Body) return Buffer.alloc(0);
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (err) {
      if (isMissingKey(err)) return undefined;
      throw describeS3Error(err, this.bucket);
    }
  }

  async getRange(key: string, start: number, end: number): Promise<Buffer | undefined> {
    // An empty range cannot be asked for: one byte says whether the object is there.
    if (end <= start) return (await this.getRange(key, start, start + 1)) && Buffer.alloc(0);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end - 1}` }),
      );
      if (!out.Body) return Buffer.alloc(0);
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (err) {
      if (isMissingKey(err)) return undefined;
      // A range that starts past the end: nothing there to read.
      if ((err as { name?: string }).name === 'InvalidRange') return Buffer.alloc(0);
      throw describeS3Error(err, this.bucket);
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      let out: DeleteObjectsCommandOutput;
      try {
        out = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
      } catch (err) {
        throw describeS3Error(err, this.bucket);
      }
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) {
        throw new Error(
          `object storage did not delete ${failed.length} object(s), e.g. ${failed[0]?.Key}: ${failed[0]?.Code}`,
        );
      }
    }
  }

  /** Lists one key: proves the endpoint answers, the keys are accepted and the bucket exists. */
  async check(): Promise<void> {
    try {
      await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1 }));
    } catch (err) {
      throw describeS3Error(err, this.bucket);
    }
  }

  /** Creates the bucket when it is missing; says whether it did. Safe to run concurrently. */
  async ensureBucket(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return false;
    } catch (err) {
      if (statusOf(err) !== 404) throw describeS3Error(err, this.bucket);
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
      return true;
    } catch (err) {
      const code = errorCode(err);
      if (code === 'BucketAlreadyOwnedByYou' || code === 'BucketAlreadyExists') return false;
      throw describeS3Error(err, this.bucket);
    }
  }

  /** Every object under `prefix`, in key order, with its size. */
  async *list(prefix = ''): AsyncGenerator<ObjectListing> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            ...(prefix ? { Prefix: prefix } : {}),
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
      } catch (err) {
        throw describeS3Error(err, this.bucket);
      }
      for (const o of page.Contents ?? []) {
        if (o.Key !== undefined) yield { key: o.Key, size: o.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
