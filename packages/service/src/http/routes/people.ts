import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listAuditEvents } from '../../access/audit.js';
import {
  addGroup,
  addUser,
  changeMembership,
  changeUser,
  getGroup,
  getUser,
  listGroups,
  listUsers,
  removeGroup,
  removeUser,
  renameGroup,
} from '../../access/people.js';
import type { AuditEvent } from '../../domain/stores.js';
import { type Group, ROLES, type User } from '../../domain/types.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody, errorResponses } from '../schemas.js';

const Id = z.object({ id: z.string().min(1).max(100) });
const Role = z
  .enum(ROLES)
  .describe(
    'owner: everything; admin: people, groups, access, keys, sources, webhooks; editor: uploads, sources, deletions where it may edit; reader: search, chat and read',
  );
const GroupNames = z.array(z.string().min(1).max(200)).max(1000).describe('Group ids or names');

export const UserView = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: Role,
    groups: z.array(z.string()).describe('Group ids'),
    passwordSignIn: z
      .boolean()
      .describe('Whether it has a password (else it signs in through the identity provider)'),
    createdAt: z.string(),
    lastSignInAt: z.string().nullable(),
  })
  .meta({ id: 'User' });

export const GroupView = z
  .object({
    id: z.string(),
    name: z.string(),
    members: z.array(z.string()).describe('User ids'),
    createdAt: z.string(),
  })
  .meta({ id: 'Group' });

const AuditEventView = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: z.string().describe("The user's e-mail or the key's prefix (or both: a key acting for a user)"),
    actorUserId: z.string().nullable(),
    actorKeyId: z.string().nullable(),
    clientAddress: z.string().nullable(),
    action: z
      .string()
      .describe('e.g. session.signed_in, user.role_changed, workspace.access_changed, document.downloaded'),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    outcome: z.enum(['success', 'failure', 'denied']),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEvent' });

export const userView = (u: User) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  groups: u.groupIds,
  passwordSignIn: u.hasPassword,
  createdAt: u.createdAt.toISOString(),
  lastSignInAt: u.lastLoginAt?.toISOString() ?? null,
});

export const groupView = (g: Group) => ({
  id: g.id,
  name: g.name,
  members: g.memberIds,
  createdAt: g.createdAt.toISOString(),
});

const eventView = (e: AuditEvent) => ({ ...e, at: e.at.toISOString() });

/**
 * The account's people and groups, and its audit log: for its owners and admins (a session, or a key
 * with the `admin` scope). Readers and editors see their own role and groups in GET /v1/session.
 */
export function peopleRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const admin = { onRequest: authorize(deps, 'admin') };
  const users = { tags: ['people'], security: SECURITY.read };
  const write = { tags: ['people'], security: SECURITY.write };

  api.get(
    '/v1/users',
    {
      ...admin,
      schema: {
        ...users,
        operationId: 'listUsers',
        summary: 'The people of the account, with their roles and groups',
        response: { 200: z.object({ users: z.array(UserView) }), ...errorResponses },
      },
    },
    async (req) => ({ users: (await listUsers(deps.users, principalOf(req))).map(userView) }),
  );

  api.post(
    '/v1/users',
    {
      ...admin,
      schema: {
        ...write,
        operationId: 'createUser',
        summary:
          'Add a person with a role (owners only add owners); with a password they sign in with it, else through the identity provider',
        body: z
          .object({
            email: z.string().min(3).max(320),
            role: Role,
            name: z.string().max(200).nullable().optional(),
            groups: GroupNames.optional(),
            password: z.string().min(1).max(1024).optional(),
          })
          .strict(),
        response: { 201: UserView, ...errorResponses, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const user = await addUser(deps, principalOf(req), req.body);
      reply.code(201);
      return userView(user);
    },
  );

  api.get(
    '/v1/users/:id',
    {
      ...admin,
      schema: {
        ...users,
        operationId: 'getUser',
        params: Id,
        summary: 'One person of the account',
        response: { 200: UserView, ...errorResponses },
      },
    },
    async (req) => userView(await getUser(deps.users, principalOf(req), req.params.id)),
  );

  api.patch(
    '/v1/users/:id',
    {
      ...admin,
      schema: {
        ...write,
        operationId: 'updateUser',
        params: Id,
        summary: 'Change a person’s role, name, groups (replaced) or password; applies to their next request',
        body: z
          .object({
            role: Role.optional(),
            name: z.string().max(200).nullable().optional(),
            groups: GroupNames.optional(),
            password: z.string().min(1).max(1024).optional(),
          })
          .strict()
          .refine((b) => Object.values(b).some((v) => v !== undefined), {
            message: 'Send at least one of role, name, groups, password.',
          }),
        response: { 200: UserView, ...errorResponses, 409: ErrorBody },
      },
    },
    async (req) => userView(await changeUser(deps, principalOf(req), req.params.id, req.body)),
  );

  api.delete(
    '/v1/users/:id',
    {
      ...admin,
      schema: {
        ...write,
        operationId: 'deleteUser',
        params: Id,
        summary:
          'Remove a person: their sessions, keys and webhooks go with them, and they leave every access list',
        response: { 200: UserView, ...errorResponses, 409: ErrorBody },
      },
    },
    async (req) => userView(await removeUser(deps, principalOf(req), req.params.id)),
  );

  api.get(
    '/v1/groups',
    {
      ...admin,
      schema: {
        ...users,
        operationId: 'listGroups',
        summary: 'The groups of the account, with their members',
        response: { 200: z.object({ groups: z.array(GroupView) }), ...errorResponses },
      },
    },
    async (req) => ({ groups: (await listGroups(deps.groups, principalOf(req))).map(groupView) }),
  );

  api.post(
    '/v1/groups',
    {
      ...admin,
      schema: {
        ...write,
        operationId: 'createGroup',
        summary: 'Add a group (names are unique in the account, without regard to case)',
        body: z.object({ name: z.string().min(1).max(200) }).strict(),
        response: { 201: GroupView, ...errorResponses, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const group = await addGroup(deps, principalOf(req), req.body.name);
      reply.code(201);
      return groupView(group);
    },
  );

  api.get(
    '/v1/groups/:id',
    {
      ...admin,
      schema: {
        ...users,
        operationId: 'getGroup',
        params: Id,
        summary: 'One group',
        response: { 200: GroupView, ...errorResponses },
      },
    },
    async (req) => groupView(await getGroup(deps.groups, principalOf(req), req.params.id)),
  );

  api.patch(
    '/v1/groups/:id',
    {
      ...admin,
      schema: {
        ...write,
        operationId: 'updateGroup',
        params: Id,
        summary: 'Rename a group',
        body: z.object({ name: z.string().min(1).max(200) }).strict(),
        response: { 200: GroupView, ...errorResponses, 409: ErrorBody },
      },
    },
    async (req) => groupView(await renameGroup(deps, principalOf(req), req.params.id, req.body.name)),
  );

  api.delete(
    '/v1/groups/:id',
    {
      ...admin,
      schema: {
        ...write,
        operationId: 'deleteGroup',
        params: Id,
        summary: 'Remove a group: it leaves every access list, and its members what it gave them',
        response: { 200: GroupView, ...errorResponses },
      },
    },
    async (req) => groupView(await removeGroup(deps, principalOf(req), req.params.id)),
  );

  const Member = z.object({ id: z.string().min(1).max(100), userId: z.string().min(1).max(100) });
  for (const [method, member] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    api[method](
      '/v1/groups/:id/members/:userId',
      {
        ...admin,
        schema: {
          ...write,
          operationId: member ? 'addGroupMember' : 'removeGroupMember',
          params: Member,
          summary: member ? 'Add a person to a group' : 'Take a person out of a group',
          response: { 200: GroupView, ...errorResponses },
        },
      },
      async (req) =>
        groupView(await changeMembership(deps, principalOf(req), req.params.id, req.params.userId, member)),
    );
  }

  api.get(
    '/v1/audit',
    {
      ...admin,
      schema: {
        tags: ['people'],
        security: SECURITY.read,
        operationId: 'listAuditEvents',
        summary: 'Who did what in the account, newest first (owners and admins)',
        querystring: z.object({
          actor: z.string().max(320).optional().describe("An e-mail, a key's prefix, a user or key id"),
          action: z.string().max(100).optional().describe('An action, or its family (`user` for user.*)'),
          target: z.string().max(100).optional().describe('The id of what was acted on'),
          since: z.iso.datetime({ offset: true }).optional(),
          until: z.iso.datetime({ offset: true }).optional(),
          cursor: z
            .string()
            .regex(/^\d{1,18}$/)
            .optional()
            .describe('nextCursor of the page before'),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        }),
        response: {
          200: z.object({ events: z.array(AuditEventView), nextCursor: z.string().nullable() }),
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await listAuditEvents(deps.audit, principalOf(req), {
        actor: q.actor,
        action: q.action,
        targetId: q.target,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
        before: q.cursor,
        limit: q.limit,
      });
      return { events: page.events.map(eventView), nextCursor: page.nextCursor };
    },
  );
}
