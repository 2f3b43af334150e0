import type { RequestOptions } from '../transport.js';
import type { AuditPage, Group, Role, Sent, User } from '../types.js';
import { type Api, id } from './api.js';

export interface CreateUserParams {
  email: string;
  role: Role;
  name?: string | null;
  /** Group ids or names. */
  groups?: string[];
  /** Without one, the user signs in through the identity provider. */
  password?: string;
}

export interface UpdateUserParams {
  role?: Role;
  name?: string | null;
  /** Replaces the user's groups (ids or names). */
  groups?: string[];
  password?: string;
}

export interface ListAuditParams {
  /** An e-mail, a key's prefix, a user or key id. */
  actor?: string;
  /** An action (`user.role_changed`) or its family (`user`). */
  action?: string;
  /** The id of what was acted on. */
  target?: string;
  since?: Date | string;
  until?: Date | string;
  /** `nextCursor` of the page before. */
  cursor?: string;
  /** 1 to 500 (default 100). */
  limit?: number;
}

const userPath = (userId: string) => `/v1/users/${id(userId, 'userId')}`;
const groupPath = (groupId: string) => `/v1/groups/${id(groupId, 'groupId')}`;

/** The account's people (owners and admins: a session, or a key with the `admin` scope). */
export class Users {
  constructor(private readonly api: Api) {}

  async list(options?: RequestOptions): Promise<User[]> {
    return (await this.api.get<{ users: User[] }>('/v1/users', options)).users;
  }

  /** Adds a person with a role; only owners add owners. Not retried (a second call is a 409). */
  create(params: CreateUserParams, options?: RequestOptions): Promise<User> {
    return this.api.post('/v1/users', params satisfies Sent<'createUser'>, false, options);
  }

  get(userId: string, options?: RequestOptions): Promise<User> {
    return this.api.get(userPath(userId), options);
  }

  /** Changes a role, name, groups or password; it applies to the user's next request. */
  update(userId: string, params: UpdateUserParams, options?: RequestOptions): Promise<User> {
    return this.api.patch(userPath(userId), params satisfies Sent<'updateUser'>, options);
  }

  /** Removes the user with their sessions, keys and webhook endpoints, and from every access list. */
  delete(userId: string, options?: RequestOptions): Promise<User> {
    return this.api.delete(userPath(userId), options);
  }
}

/** The account's groups of users. */
export class Groups {
  constructor(private readonly api: Api) {}

  async list(options?: RequestOptions): Promise<Group[]> {
    return (await this.api.get<{ groups: Group[] }>('/v1/groups', options)).groups;
  }

  create(params: { name: string }, options?: RequestOptions): Promise<Group> {
    return this.api.post('/v1/groups', params satisfies Sent<'createGroup'>, false, options);
  }

  get(groupId: string, options?: RequestOptions): Promise<Group> {
    return this.api.get(groupPath(groupId), options);
  }

  rename(groupId: string, name: string, options?: RequestOptions): Promise<Group> {
    return this.api.patch(groupPath(groupId), { name } satisfies Sent<'updateGroup'>, options);
  }

  /** Removes the group: it leaves every access list, and its members what it gave them. */
  delete(groupId: string, options?: RequestOptions): Promise<Group> {
    return this.api.delete(groupPath(groupId), options);
  }

  addMember(groupId: string, userId: string, options?: RequestOptions): Promise<Group> {
    return this.api.put(`${groupPath(groupId)}/members/${id(userId, 'userId')}`, options);
  }

  removeMember(groupId: string, userId: string, options?: RequestOptions): Promise<Group> {
    return this.api.delete(`${groupPath(groupId)}/members/${id(userId, 'userId')}`, options);
  }
}

/** The account's audit log (owners and admins). */
export class Audit {
  constructor(private readonly api: Api) {}

  list(params: ListAuditParams = {}, options?: RequestOptions): Promise<AuditPage> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined) continue;
      query.set(key, value instanceof Date ? value.toISOString() : String(value));
    }
    const q = query.toString();
    return this.api.get(`/v1/audit${q ? `?${q}` : ''}`, options);
  }
}
