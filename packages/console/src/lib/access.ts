import type { DocumentAccess, GrantsInput, Group, User, WorkspaceAccess } from '@service/sdk';
import type { components } from '@service/sdk/openapi';
import { createContext, useContext } from 'react';

/** The signed-in person, as GET /v1/session describes them (the type api.ts exports too). */
type SessionUser = components['schemas']['Session']['user'];

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

/** Chosen users and groups (ids), and for a person who cannot list the account, names typed in. */
export interface Chosen {
  users: string[];
  groups: string[];
  /** E-mail addresses and group names, separated by commas. */
  typed: string;
}

export const NOBODY: Chosen = { users: [], groups: [], typed: '' };

export const chosenOf = (g: { users: string[]; groups: string[] } | null | undefined): Chosen =>
  g ? { users: [...g.users], groups: [...g.groups], typed: '' } : NOBODY;

/** As the API takes it: typed words with an @ are people's e-mails, the others group names. */
export function grantsOf(c: Chosen): Required<GrantsInput> {
  const typed = c.typed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    users: [...c.users, ...typed.filter((s) => s.includes('@'))],
    groups: [...c.groups, ...typed.filter((s) => !s.includes('@'))],
  };
}

/** A document's readers as a choice: its workspace's readers, or only those chosen among them. */
export interface DocumentChoice {
  restricted: boolean;
  chosen: Chosen;
}

export const documentChoiceOf = (a: DocumentAccess | undefined): DocumentChoice => ({
  restricted: !!a,
  chosen: chosenOf(a),
});

export const documentAccessOf = (c: DocumentChoice): GrantsInput | null =>
  c.restricted ? grantsOf(c.chosen) : null;
