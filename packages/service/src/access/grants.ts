import type { GroupStore, UserStore } from '../domain/stores.js';
import type { DocumentAccess, Grants, WorkspaceAccess } from '../domain/types.js';
import { errors } from '../errors.js';
import { findMember } from './principals.js';

/** Access as callers write it: users by id or e-mail, groups by id or name. */
export interface GrantsInput {
  users?: readonly string[] | undefined;
  groups?: readonly string[] | undefined;
}
export interface WorkspaceAccessInput {
  read?: GrantsInput | undefined;
  edit?: GrantsInput | undefined;
}

/** Most users and groups one list may name: access lists are for audiences, not for every person. */
export const MAX_GRANTS = 1000;

export type GrantDeps = {
  users: Pick<UserStore, 'getUser' | 'findUserByEmail'>;
  groups: Pick<GroupStore, 'resolveGroups'>;
};

/** A list with every user and group found in the account, as ids; a name not found is a 400 that says which. */
export async function resolveGrants(
  deps: GrantDeps,
  accountId: string,
  input: GrantsInput,
  field: string,
): Promise<Grants> {
  const users = [...new Set((input.users ?? []).map((u) => u.trim()).filter(Boolean))];
  const groups = [...new Set((input.groups ?? []).map((g) => g.trim()).filter(Boolean))];
  if (users.length > MAX_GRANTS || groups.length > MAX_GRANTS)
    throw errors.invalidRequest(`"${field}" may name at most ${MAX_GRANTS} users and ${MAX_GRANTS} groups.`);
  const userIds: string[] = [];
  for (const named of users) {
    const user = await findMember(deps.users, accountId, named);
    if (!user)
      throw errors.invalidRequest(`"${field}.users" names "${named}", who is no user of this account.`);
    userIds.push(user.id);
  }
  const found = await deps.groups.resolveGroups(accountId, groups);
  const groupIds = groups.map((named) => {
    const group = found.find((g) => g.id === named || g.name.toLowerCase() === named.toLowerCase());
    if (!group)
      throw errors.invalidRequest(`"${field}.groups" names "${named}", which is no group of this account.`);
    return group.id;
  });
  return { users: [...new Set(userIds)], groups: [...new Set(groupIds)] };
}

/** A document's access (null: its workspace's readers). */
export async function resolveDocumentAccess(
  deps: GrantDeps,
  accountId: string,
  input: GrantsInput | null,
  field = 'access',
): Promise<DocumentAccess> {
  return input === null ? null : resolveGrants(deps, accountId, input, field);
}

/** A workspace's access (null: the whole account). Editors read too, so `read` may leave them out. */
export async function resolveWorkspaceAccess(
  deps: GrantDeps,
  accountId: string,
  input: WorkspaceAccessInput | null,
): Promise<WorkspaceAccess> {
  if (input === null) return null;
  return {
    read: await resolveGrants(deps, accountId, input.read ?? {}, 'access.read'),
    edit: await resolveGrants(deps, accountId, input.edit ?? {}, 'access.edit'),
  };
}
