import type { RequestOptions } from '../transport.js';
import type { Answer, GrantsInput, Sent, Source, SourceSync, SourceType } from '../types.js';
import { type Api, id } from './api.js';

export interface CreateSourceParams {
  type: SourceType;
  name?: string | null;
  /**
   * s3: `{ endpoint?, region?, bucket, prefix?, forcePathStyle? }`; website: `{ startUrl? | sitemapUrl?,
   * urlPrefix?, maxPages?, maxDepth?, maxRequests?, maxHosts?, requestDelayMs? }`; folder: `{ path }`
   * (under a folder the server's SOURCE_FOLDER_ROOTS grants the key's account).
   */
  settings: Record<string, unknown>;
  /** s3 only: `{ accessKeyId, secretAccessKey }`, stored encrypted and never returned. */
  credentials?: Record<string, string>;
  /** Sync on this schedule (at least 1); null or absent: only on request. */
  intervalMinutes?: number | null;
  /** Default 0.5: a sync deleting more than half of the source's documents fails unless forced. */
  maxDeleteShare?: number;
  /** Who of the workspace's readers may read the documents it brings; null or absent: all of them. */
  access?: GrantsInput | null;
}

/** Fields left out keep their value; `credentials: null` removes them, `intervalMinutes: null` the schedule. */
export type UpdateSourceParams = Partial<Omit<CreateSourceParams, 'type' | 'credentials'>> & {
  credentials?: Record<string, string> | null;
};

const sourcesPath = (workspaceId: string) => `/v1/workspaces/${id(workspaceId, 'workspaceId')}/sources`;
const sourcePath = (workspaceId: string, sourceId: string) =>
  `${sourcesPath(workspaceId)}/${id(sourceId, 'sourceId')}`;

/** The sources a workspace stays in sync with, and syncing them now. */
export class Sources {
  constructor(private readonly api: Api) {}

  createSource(
    workspaceId: string,
    params: CreateSourceParams,
    options: RequestOptions | undefined,
  ): Promise<Source> {
    return this.api.post(sourcesPath(workspaceId), params satisfies Sent<'createSource'>, false, options);
  }

  listSourceTypes(options: RequestOptions | undefined): Promise<Answer<'listSourceTypes', 200>> {
    return this.api.get('/v1/source-types', options);
  }

  listSources(workspaceId: string, options: RequestOptions | undefined): Promise<Answer<'listSources', 200>> {
    return this.api.get(sourcesPath(workspaceId), options);
  }

  getSource(workspaceId: string, sourceId: string, options: RequestOptions | undefined): Promise<Source> {
    return this.api.get(sourcePath(workspaceId, sourceId), options);
  }

  updateSource(
    workspaceId: string,
    sourceId: string,
    params: UpdateSourceParams,
    options: RequestOptions | undefined,
  ): Promise<Source> {
    return this.api.patch(sourcePath(workspaceId, sourceId), params satisfies Sent<'updateSource'>, options);
  }

  deleteSource(workspaceId: string, sourceId: string, options: RequestOptions | undefined): Promise<Source> {
    return this.api.delete(sourcePath(workspaceId, sourceId), options);
  }

  syncSource(
    workspaceId: string,
    sourceId: string,
    params: { force?: boolean },
    options: RequestOptions | undefined,
  ): Promise<SourceSync> {
    const body = params satisfies Sent<'syncSource'>;
    return this.api.post(`${sourcePath(workspaceId, sourceId)}/sync`, body, false, options);
  }
}
