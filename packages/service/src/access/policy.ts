/**
 * Who may see and do what (decision 0017): the rule, stated once. The in-memory repositories apply
 * it as it is; the PostgreSQL ones state it as one SQL predicate (adapters/postgres/visibility.ts),
 * held to this one by test/integration/visibility.test.ts.
 */
import type {
  Audience,
  DocumentAccess,
  Grants,
  Member,
  Role,
  Scope,
  WorkspaceAccess,
} from '../domain/types.js';

/** Owners and admins see everything: they can change every permission anyway. */
export const seesEverything = (role: Role): boolean => role === 'owner' || role === 'admin';

/** What each role may do at most; a credential's scopes narrow it further. */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: ['ingest', 'search', 'artifacts', 'admin'],
  admin: ['ingest', 'search', 'artifacts', 'admin'],
  editor: ['ingest', 'search', 'artifacts'],
  reader: ['search', 'artifacts'],
};

/** The member's view, or undefined for a role that sees everything. */
export function memberView(userId: string, role: Role, groupIds: readonly string[]): Member | undefined {
  return seesEverything(role) ? undefined : { userId, role, groupIds };
}

const listed = (grants: Grants, member: Member) =>
  grants.users.includes(member.userId) || grants.groups.some((g) => member.groupIds.includes(g));

export function mayReadWorkspace(audience: Audience, access: WorkspaceAccess): boolean {
  const { member } = audience;
  if (!member || access === null) return true;
  return listed(access.read, member) || listed(access.edit, member);
}

/** Editing (uploads, sources, deletions, reprocessing) also needs a role that may edit at all. */
export function mayEditWorkspace(audience: Audience, access: WorkspaceAccess): boolean {
  const { member } = audience;
  if (!member) return true;
  if (member.role === 'reader') return false;
  return access === null || listed(access.edit, member);
}

export function mayReadDocument(
  audience: Audience,
  workspace: WorkspaceAccess,
  document: DocumentAccess,
): boolean {
  const { member } = audience;
  if (!member) return true;
  if (!mayReadWorkspace(audience, workspace)) return false;
  return document === null || listed(document, member);
}
