import type { WorkspaceStore } from '../domain/stores.js';
import type { Principal, Workspace } from '../domain/types.js';
import { errors } from '../errors.js';
import { mayEditWorkspace } from './policy.js';

/**
 * Checks of what a principal may do, for the domain operations (never the routes): one a member may
 * see but not change answers permission_denied; one it may not see it never finds (not found).
 */

/** Uploads, URL ingestion, sources, deletions and reprocessing in the workspace. */
export function requireEdit(principal: Principal, workspace: Workspace): void {
  if (mayEditWorkspace(principal, workspace.access)) return;
  throw errors.permissionDenied(
    principal.role === 'reader'
      ? 'Readers search and read; changing a workspace needs the editor role.'
      : `You may read workspace "${workspace.id}" but not change it: ask an admin to add you to its editors.`,
  );
}

/** Who may change who sees a workspace, and delete it: its account's owners and admins. */
export function requireManager(principal: Principal, what: string): void {
  if (principal.member === undefined) return;
  throw errors.permissionDenied(`Only owners and admins ${what}.`);
}

/**
 * Owners are managed by owners (or by an account key with the admin scope, which acts for the
 * account as a whole, as the bootstrap key does).
 */
export function mayManageOwners(principal: Principal): boolean {
  return principal.role === 'owner' || (principal.role === undefined && principal.scopes.has('admin'));
}

/** The workspace, for a change by the principal: not found when it may not see it, denied when it may not edit. */
export async function workspaceToEdit(
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>,
  principal: Principal,
  workspaceId: string,
): Promise<Workspace> {
  const workspace = await workspaces.getWorkspace(principal, workspaceId);
  if (!workspace) throw errors.workspaceNotFound(workspaceId);
  requireEdit(principal, workspace);
  return workspace;
}

/**
 * For a change to something of a workspace the principal has already found (a run, a document):
 * checks it may edit that workspace. Nothing to look up for the whole account, which may edit all.
 */
export async function requireEditOf(
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>,
  principal: Principal,
  workspaceId: string,
): Promise<void> {
  if (principal.member) await workspaceToEdit(workspaces, principal, workspaceId);
}
