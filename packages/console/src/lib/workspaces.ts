import type { Workspace } from '@service/sdk';

/** The longest name the service takes (POST /v1/workspaces). */
export const WORKSPACE_NAME_MAX = 200;
/** The longest description it takes. */
export const WORKSPACE_DESCRIPTION_MAX = 2000;

/**
 * How a workspace is named on screen: its name, or for one an upload made before names existed
 * (or through the API without one), a label with its id, so that two of them still differ.
 */
export function workspaceLabel(w: Pick<Workspace, 'id' | 'name'>): string {
  return w.name ?? `Unnamed workspace ${w.id}`;
}

const withoutExtension = (name: string) => name.replace(/\.[A-Za-z0-9]{1,8}$/, '').trim();

/** The words several names start with ("memo" of memo-01…memo-40), without a dangling separator or number. */
function commonStart(names: string[]): string {
  let prefix = names[0] ?? '';
  for (const n of names.slice(1)) {
    let i = 0;
    while (i < prefix.length && i < n.length && prefix[i]!.toLowerCase() === n[i]!.toLowerCase()) i++;
    prefix = prefix.slice(0, i);
  }
  return withoutTrailingNumber(prefix).trim();
}

const SEPARATOR = /[\s\-_.,(]/;
/**
 * `text` without what ends it: separators, then digits, then separators ("memo-0" → "memo"). Walked
 * back by hand: as one pattern anchored at the end, its runs backtrack quadratically on a long name.
 */
function withoutTrailingNumber(text: string): string {
  let end = text.length;
  while (end > 0 && SEPARATOR.test(text[end - 1]!)) end--;
  while (end > 0 && text[end - 1]! >= '0' && text[end - 1]! <= '9') end--;
  while (end > 0 && SEPARATOR.test(text[end - 1]!)) end--;
  return text.slice(0, end);
}

/**
 * The name an upload suggests for the workspace it creates: one file's name without its extension;
 * for several, the folder they were chosen from, else what their names have in common (three letters
 * at least), else the day ("Documents of 12 May 2025"). Never one file's name "and 13 more": the
 * first of a selection says little about the rest.
 */
export function suggestedName(
  files: { name: string; webkitRelativePath?: string }[],
  today = new Date(),
): string {
  if (files.length === 0) return '';
  if (files.length === 1) return withoutExtension(files[0]!.name);
  // Files chosen as a folder carry their path within it: the folder they all sit in names them.
  const roots = new Set(
    files.map((f) => (f.webkitRelativePath?.includes('/') ? f.webkitRelativePath.split('/')[0] : '')),
  );
  const [root] = roots;
  if (roots.size === 1 && root) return root;
  const common = commonStart(files.map((f) => withoutExtension(f.name)));
  if (/\p{L}{3}/u.test(common)) return common;
  return `Documents of ${today.toLocaleDateString(undefined, { dateStyle: 'medium' })}`;
}
