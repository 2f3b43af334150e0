import type { Workspace } from '@service/sdk';

/** The longest name the service takes (POST /v1/workspaces). */
export const WORKSPACE_NAME_MAX = 200;

/**
 * How a workspace is named on screen: its name, or for one an upload made before names existed
 * (or through the API without one), a label with its id, so that two of them still differ.
 */
export function workspaceLabel(w: Pick<Workspace, 'id' | 'name'>): string {
  return w.name ?? `Unnamed workspace ${w.id}`;
}

/** The name an upload suggests for the workspace it creates: the first file's, without its extension. */
export function suggestedName(files: { name: string }[]): string {
  const first = files[0]?.name.replace(/\.[A-Za-z0-9]{1,8}$/, '').trim() ?? '';
  if (!first) return '';
  return files.length === 1 ? first : `${first} and ${files.length - 1} more`;
}
