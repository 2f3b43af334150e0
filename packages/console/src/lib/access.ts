import type { DocumentAccess, Group, User, WorkspaceAccess } from '@service/sdk';
import { createContext, useContext } from 'react';
import type { SessionUser } from '../api';

/**
 * What the signed-in person may do, for the screens to show only the buttons that work for them.
 * The service decides (access/policy.ts): these mirror its rule so that a reader is never offered
 * an upload that would answer 403. A screen that guessed wrong still gets the service's answer.
 */

export const SessionContext = createContext<SessionUser | undefined>(undefined);

/** The signed-in user: every screen is shown inside a session. */
export function useUser(): SessionUser {
  const user = useContext(SessionContext);
  if (!user) throw new Error('useUser outside a session');
  return user;
}

type Who = Pick<SessionUser, 'id' | 'role' | 'groups'>;

/** Owners and admins: people, groups, who may see what, keys, webhooks, the audit log, deletions of workspaces. */
export const isManager = (u: Pick<SessionUser, 'role'>) => u.role === 'owner' || u.role === 'admin';

const listed = (grants: { users: string[]; groups: string[] }, u: Who) =>
  grants.users.includes(u.id) || u.groups.some((g) => grants.groups.includes(g.id));

/** Uploads, sources, deletions and reprocessing in a workspace: a role that edits, and a place among its editors. */
export function mayEdit(u: Who, access: WorkspaceAccess): boolean {
  if (isManager(u)) return true;
  if (u.role === 'reader') return false;
  return access === null || listed(access.edit, u);
}

/** Runs (their progress, pausing, cancelling) need the ingest scope, which a reader's session lacks. */
export const maySeeRuns = (u: Pick<SessionUser, 'role'>) => u.role !== 'reader';

/** Creating a workspace (empty, or by an upload): anyone but a reader. */
export const mayCreateWorkspaces = (u: Pick<SessionUser, 'role'>) => u.role !== 'reader';

/**
 * The people and groups the screens name: the whole account's for owners and admins (who may list
 * them), else what the session says of the person (themselves and their own groups).
 */
export interface Directory {
  users: Pick<User, 'id' | 'email'>[];
  groups: Pick<Group, 'id' | 'name'>[];
  /** Whether these are the whole account's (else only the person's own). */
  complete: boolean;
}

export function ownDirectory(u: SessionUser): Directory {
  return { users: [{ id: u.id, email: u.email }], groups: u.groups, complete: false };
}

/** Names of the users and groups of an access list, in words; ids the directory does not know stay ids. */
export function describeGrants(grants: { users: string[]; groups: string[] }, dir: Directory): string[] {
  const group = (id: string) => dir.groups.find((g) => g.id === id);
  const user = (id: string) => dir.users.find((x) => x.id === id);
  return [
    ...grants.groups.map((id) => `group ${group(id)?.name ?? id}`),
    ...grants.users.map((id) => user(id)?.email ?? `user ${id}`),
  ];
}

/** A document's readers, in words. */
export function describeDocumentAccess(access: DocumentAccess, dir: Directory): string {
  if (access === null) return 'Everyone who may read the workspace';
  const names = describeGrants(access, dir);
  return names.length === 0 ? 'Nobody but owners and admins' : `Only ${names.join(', ')}`;
}
