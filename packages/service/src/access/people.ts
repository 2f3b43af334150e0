import { hashPassword } from '../domain/passwords.js';
import type { AuditStore, GroupStore, UserStore } from '../domain/stores.js';
import type { Group, Principal, Role, User } from '../domain/types.js';
import { ROLES } from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { audit } from './audit.js';
import { mayManageOwners, requireManager } from './checks.js';

/**
 * An account's people and groups, managed by its owners and admins (and by account keys with the
 * `admin` scope): owners only by owners. Every change is audited.
 */

export interface PeopleDeps {
  users: UserStore;
  groups: GroupStore;
  audit: Pick<AuditStore, 'append'>;
}

const MIN_PASSWORD_LENGTH = 10;
const NAME_MAX = 200;

/** An e-mail address as users are found by (trimmed; compared without regard to case). */
export function emailAddress(raw: string): string {
  const email = raw.trim();
  // The domain's labels cannot hold dots: one way to split the address, so no backtracking.
  if (!/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(email) || email.length > 320)
    throw errors.invalidRequest(`"${raw}" is not an e-mail address.`);
  return email;
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw errors.invalidRequest(`A password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
}

function role(raw: string): Role {
  if (!(ROLES as readonly string[]).includes(raw))
    throw errors.invalidRequest(`"${raw}" is no role; use one of ${ROLES.join(', ')}.`);
  return raw as Role;
}

function displayName(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const name = raw.trim();
  if ([...name].length > NAME_MAX)
    throw errors.invalidRequest(`A name may be at most ${NAME_MAX} characters.`);
  return name === '' ? null : name;
}

function requireOwnerPower(principal: Principal, what: string): void {
  if (!mayManageOwners(principal)) throw errors.permissionDenied(`Only owners ${what}.`);
}

/** The groups named (ids or names), all of the account's; a name not found is a 400 that says which. */
async function groupIdsOf(deps: Pick<PeopleDeps, 'groups'>, accountId: string, named: readonly string[]) {
  const found = await deps.groups.resolveGroups(accountId, named);
  return named.map((n) => {
    const g = found.find((x) => x.id === n || x.name.toLowerCase() === n.trim().toLowerCase());
    if (!g) throw errors.invalidRequest(`"groups" names "${n}", which is no group of this account.`);
    return g.id;
  });
}

export interface NewPerson {
  email: string;
  role: string;
  name?: string | null | undefined;
  /** Group ids or names. */
  groups?: readonly string[] | undefined;
  /** For sign-in with a password; without one the user signs in through the identity provider. */
  password?: string | undefined;
}

/** Adds a user to the principal's account (the console's invitation, `POST /v1/users`). */
export async function addUser(deps: PeopleDeps, principal: Principal, input: NewPerson): Promise<User> {
  requireManager(principal, 'add users');
  const wanted = role(input.role);
  if (wanted === 'owner') requireOwnerPower(principal, 'make owners');
  const user = await insertUser(deps, principal.accountId, { ...input, role: wanted });
  await audit(deps.audit, principal, {
    action: 'user.created',
    targetType: 'user',
    targetId: user.id,
    details: { email: user.email, role: user.role, groups: user.groupIds },
  });
  return user;
}

/** A new user, for the operations above, the CLI and the first sign-in through the identity provider. */
export async function insertUser(
  deps: Pick<PeopleDeps, 'users' | 'groups'>,
  accountId: string,
  input: Omit<NewPerson, 'role'> & { role: Role; oidc?: { issuer: string; subject: string } | undefined },
): Promise<User> {
  const email = emailAddress(input.email);
  if (input.password !== undefined) checkPassword(input.password);
  if (await deps.users.findUserByEmail(email)) throw errors.userExists(email);
  const groupIds = await groupIdsOf(deps, accountId, input.groups ?? []);
  return deps.users.insertUser({
    id: newId('usr'),
    accountId,
    email,
    name: displayName(input.name) ?? null,
    role: input.role,
    passwordHash: input.password === undefined ? null : await hashPassword(input.password),
    groupIds,
    oidc: input.oidc,
  });
}

export function listUsers(users: Pick<UserStore, 'listUsers'>, principal: Principal): Promise<User[]> {
  requireManager(principal, 'list the account’s users');
  return users.listUsers(principal.accountId);
}

export async function getUser(users: Pick<UserStore, 'getUser'>, principal: Principal, userId: string) {
  requireManager(principal, 'read other users');
  const user = await users.getUser(principal.accountId, userId);
  if (!user) throw errors.userNotFound(userId);
  return user;
}

async function ownersLeft(users: Pick<UserStore, 'listUsers'>, accountId: string, without: string) {
  return (await users.listUsers(accountId)).filter((u) => u.role === 'owner' && u.id !== without).length;
}

export interface PersonChanges {
  role?: string | undefined;
  name?: string | null | undefined;
  groups?: readonly string[] | undefined;
  password?: string | undefined;
}

export async function changeUser(
  deps: PeopleDeps,
  principal: Principal,
  userId: string,
  changes: PersonChanges,
): Promise<User> {
  const user = await getUser(deps.users, principal, userId);
  const wanted = changes.role === undefined ? undefined : role(changes.role);
  if (user.role === 'owner' || wanted === 'owner') requireOwnerPower(principal, 'change owners or make them');
  if (user.role === 'owner' && wanted !== undefined && wanted !== 'owner') {
    if ((await ownersLeft(deps.users, principal.accountId, user.id)) === 0) throw errors.lastOwner();
  }
  if (changes.password !== undefined) checkPassword(changes.password);
  const groupIds =
    changes.groups === undefined ? undefined : await groupIdsOf(deps, principal.accountId, changes.groups);
  const updated = await deps.users.updateUser(principal.accountId, userId, {
    role: wanted,
    name: displayName(changes.name),
    groupIds,
    passwordHash: changes.password === undefined ? undefined : await hashPassword(changes.password),
  });
  if (!updated) throw errors.userNotFound(userId);
  // A new password ends the sessions signed in with the old one.
  if (changes.password !== undefined) await deps.users.deleteSessionsOf(userId);
  await audit(deps.audit, principal, {
    action: wanted !== undefined && wanted !== user.role ? 'user.role_changed' : 'user.updated',
    targetType: 'user',
    targetId: userId,
    details: {
      email: updated.email,
      ...(wanted !== undefined ? { role: { from: user.role, to: updated.role } } : {}),
      ...(groupIds !== undefined ? { groups: { from: user.groupIds, to: updated.groupIds } } : {}),
      ...(changes.password !== undefined ? { password: 'set' } : {}),
    },
  });
  return updated;
}

export async function removeUser(deps: PeopleDeps, principal: Principal, userId: string): Promise<User> {
  const user = await getUser(deps.users, principal, userId);
  if (user.role === 'owner') {
    requireOwnerPower(principal, 'remove owners');
    if ((await ownersLeft(deps.users, principal.accountId, user.id)) === 0) throw errors.lastOwner();
  }
  const deleted = await deps.users.deleteUser(principal.accountId, userId);
  if (!deleted) throw errors.userNotFound(userId);
  await audit(deps.audit, principal, {
    action: 'user.deleted',
    targetType: 'user',
    targetId: userId,
    details: { email: deleted.email, role: deleted.role },
  });
  return deleted;
}

const GROUP_NAME_MAX = 200;

function groupName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw errors.invalidRequest('A group needs a name.');
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw errors.invalidRequest('A group name may not contain line breaks or control characters.');
  if ([...name].length > GROUP_NAME_MAX)
    throw errors.invalidRequest(`A group name may be at most ${GROUP_NAME_MAX} characters.`);
  return name;
}

export function listGroups(groups: Pick<GroupStore, 'listGroups'>, principal: Principal): Promise<Group[]> {
  requireManager(principal, 'list groups');
  return groups.listGroups(principal.accountId);
}

export async function getGroup(groups: Pick<GroupStore, 'getGroup'>, principal: Principal, groupId: string) {
  requireManager(principal, 'read groups');
  const group = await groups.getGroup(principal.accountId, groupId);
  if (!group) throw errors.groupNotFound(groupId);
  return group;
}

export async function addGroup(deps: PeopleDeps, principal: Principal, name: string): Promise<Group> {
  requireManager(principal, 'add groups');
  const group = await deps.groups.insertGroup({
    id: newId('grp'),
    accountId: principal.accountId,
    name: groupName(name),
  });
  if (!group) throw errors.groupExists(name.trim());
  await audit(deps.audit, principal, {
    action: 'group.created',
    targetType: 'group',
    targetId: group.id,
    details: { name: group.name },
  });
  return group;
}

export async function renameGroup(
  deps: PeopleDeps,
  principal: Principal,
  groupId: string,
  name: string,
): Promise<Group> {
  const before = await getGroup(deps.groups, principal, groupId);
  const renamed = await deps.groups.renameGroup(principal.accountId, groupId, groupName(name));
  if (renamed === 'conflict') throw errors.groupExists(name.trim());
  if (!renamed) throw errors.groupNotFound(groupId);
  await audit(deps.audit, principal, {
    action: 'group.renamed',
    targetType: 'group',
    targetId: groupId,
    details: { from: before.name, to: renamed.name },
  });
  return renamed;
}

export async function removeGroup(deps: PeopleDeps, principal: Principal, groupId: string): Promise<Group> {
  requireManager(principal, 'remove groups');
  const deleted = await deps.groups.deleteGroup(principal.accountId, groupId);
  if (!deleted) throw errors.groupNotFound(groupId);
  await audit(deps.audit, principal, {
    action: 'group.deleted',
    targetType: 'group',
    targetId: groupId,
    details: { name: deleted.name, members: deleted.memberIds },
  });
  return deleted;
}

export async function changeMembership(
  deps: PeopleDeps,
  principal: Principal,
  groupId: string,
  userId: string,
  member: boolean,
): Promise<Group> {
  await getGroup(deps.groups, principal, groupId);
  const user = await deps.users.getUser(principal.accountId, userId);
  if (!user) throw errors.userNotFound(userId);
  const group = member
    ? await deps.groups.addMember(principal.accountId, groupId, userId)
    : await deps.groups.removeMember(principal.accountId, groupId, userId);
  if (!group) throw errors.groupNotFound(groupId);
  await audit(deps.audit, principal, {
    action: member ? 'group.member_added' : 'group.member_removed',
    targetType: 'group',
    targetId: groupId,
    details: { userId, email: user.email },
  });
  return group;
}
