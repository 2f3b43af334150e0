import type { Queryable } from './db.js';

/**
 * Takes a user or a group off every access list of its account: workspaces' readers and editors,
 * documents', and sources' (which hand theirs to the documents they bring). A user or group made
 * later under the same id or name must never inherit what a deleted one was given.
 */
export async function removeFromAccessLists(
  c: Queryable,
  kind: 'users' | 'groups',
  id: string,
  accountId: string,
): Promise<void> {
  await c.query(
    `UPDATE workspaces SET read_${kind} = array_remove(read_${kind}, $1), edit_${kind} = array_remove(edit_${kind}, $1)
      WHERE account_id = $2 AND (read_${kind} @> ARRAY[$1] OR edit_${kind} @> ARRAY[$1])`,
    [id, accountId],
  );
  for (const table of ['documents', 'sources'])
    await c.query(
      `UPDATE ${table} SET access_${kind} = array_remove(access_${kind}, $1)
        WHERE account_id = $2 AND access_${kind} @> ARRAY[$1]`,
      [id, accountId],
    );
}
