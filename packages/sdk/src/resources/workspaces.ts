import type { RequestOptions } from '../transport.js';
import type { Answer, Availability, GrantsInput, Sent, Workspace, WorkspaceDeletion } from '../types.js';
import { type Api, id, LONG_TIMEOUT_MS, readJson } from './api.js';

export interface CreateWorkspaceParams {
  /** Shown in lists and headings (at most 200 characters); need not be unique. */
  name: string;
  description?: string | null;
  /** A JSON object of your own. */
  metadata?: Record<string, unknown>;
  /** `auto` (the default: each document read in its detected language) or an ISO 639-1 code (`formats().languages`). */
  language?: string;
  /** Who may read and edit it (owners and admins only); absent or null: the whole account. */
  access?: WorkspaceAccessInput | null;
}

/** What to change; fields left out keep their value. */
export interface UpdateWorkspaceParams {
  name?: string;
  /** `null` (or `""`) removes it. */
  description?: string | null;
  /** Replaces the whole object. */
  metadata?: Record<string, unknown>;
  /** `auto` or an ISO 639-1 code: documents processed from now on are read in it. */
  language?: string;
  /** Who may read and edit it (owners and admins only); null opens it to the whole account. */
  access?: WorkspaceAccessInput | null;
}

/** A workspace's access as callers write it: users by id or e-mail, groups by id or name. */
export interface WorkspaceAccessInput {
  read?: GrantsInput;
  edit?: GrantsInput;
}

const workspacePath = (workspaceId: string) => `/v1/workspaces/${id(workspaceId, 'workspaceId')}`;

/** Workspaces: listing, creating, changing and deleting them, and what their search covers. */
export class Workspaces {
  constructor(private readonly api: Api) {}

  listWorkspaces(options: RequestOptions | undefined): Promise<Answer<'listWorkspaces', 200>> {
    return this.api.get('/v1/workspaces', options);
  }

  getWorkspace(workspaceId: string, options: RequestOptions | undefined): Promise<Workspace> {
    return this.api.get(workspacePath(workspaceId), options);
  }

  createWorkspace(params: CreateWorkspaceParams, options: RequestOptions | undefined): Promise<Workspace> {
    if (typeof params?.name !== 'string') throw new TypeError('createWorkspace needs a name: { name: "…" }.');
    // Not retried: each call creates a workspace.
    return this.api.post('/v1/workspaces', params satisfies Sent<'createWorkspace'>, false, options);
  }

  updateWorkspace(
    workspaceId: string,
    params: UpdateWorkspaceParams,
    options: RequestOptions | undefined,
  ): Promise<Workspace> {
    return this.api.patch(workspacePath(workspaceId), params satisfies Sent<'updateWorkspace'>, options);
  }

  deleteWorkspace(workspaceId: string, options: RequestOptions | undefined): Promise<WorkspaceDeletion> {
    // Its stored files and index go with it, which takes longer than a plain request.
    return this.api.send<WorkspaceDeletion>(
      {
        method: 'DELETE',
        path: workspacePath(workspaceId),
        accept: 'application/json',
        retryable: false,
        defaultTimeoutMs: LONG_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  getAvailability(workspaceId: string, options: RequestOptions | undefined): Promise<Availability> {
    return this.api.get(`${workspacePath(workspaceId)}/availability`, options);
  }
}
