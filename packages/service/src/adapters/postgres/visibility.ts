import type { Audience } from '../../domain/types.js';

/**
 * The access rule of access/policy.ts as SQL, for the queries that cannot read every row to apply it
 * in JavaScript (lists, counts, pages, the search prefilter). test/integration/visibility.test.ts holds
 * the two to each other. Access lists are arrays on the rows they guard (migration 0017): no join.
 */
export interface SqlVisibility {
  /** The audience may read workspace `w` (a table alias). */
  workspace(w: string): string;
  /** The audience is among those document `d` lists (its workspace's readability is separate). */
  document(d: string): string;
  /** Both: the audience may read document `d` of workspace `w`. */
  readable(w: string, d: string): string;
  /** The values of the placeholders the fragments use, to append to the query's. */
  params: unknown[];
}

const WHOLE_ACCOUNT: SqlVisibility = {
  workspace: () => 'TRUE',
  document: () => 'TRUE',
  readable: () => 'TRUE',
  params: [],
};

/**
 * The fragments for an audience, their placeholders numbered from `$first` (the query's own come
 * before). For the whole account every fragment is TRUE and there is nothing to append.
 */
export function visibilityFor(audience: Audience, first: number): SqlVisibility {
  const { member } = audience;
  if (!member) return WHOLE_ACCOUNT;
  const user = `ARRAY[$${first}::text]`;
  const groups = `$${first + 1}::text[]`;
  const listed = (users: string, groupsColumn: string) =>
    `(${users} @> ${user} OR ${groupsColumn} && ${groups})`;
  const workspace = (w: string) =>
    `(${w}.read_users IS NULL OR ${listed(`${w}.read_users`, `${w}.read_groups`)} OR ${listed(`${w}.edit_users`, `${w}.edit_groups`)})`;
  const document = (d: string) =>
    `(${d}.access_users IS NULL OR ${listed(`${d}.access_users`, `${d}.access_groups`)})`;
  return {
    workspace,
    document,
    readable: (w, d) => `(${workspace(w)} AND ${document(d)})`,
    params: [member.userId, [...member.groupIds]],
  };
}
