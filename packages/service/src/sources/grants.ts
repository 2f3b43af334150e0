/**
 * A folder the operator lets one account (or every account) sync from: an entry of
 * SOURCE_FOLDER_ROOTS, `[account=]/absolute/path`. A bare path is granted to the default account
 * only, `*=` to every account; another account names it by name or id (docs/security.md).
 */
export interface FolderRootGrant {
  /** An account's name or id, or `*` for every account. */
  account: string;
  path: string;
}

/** The roots an account may sync folders from. */
export function rootsFor(
  grants: readonly FolderRootGrant[],
  account: { id: string; name: string },
): string[] {
  return grants
    .filter((g) => g.account === '*' || g.account === account.id || g.account === account.name)
    .map((g) => g.path);
}
