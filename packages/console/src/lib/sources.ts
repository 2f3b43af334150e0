import type { Source, SourceType } from '@service/sdk';

export const SOURCE_TYPES: { type: SourceType; label: string }[] = [
  { type: 'website', label: 'Website' },
  { type: 's3', label: 'S3 bucket' },
  { type: 'folder', label: 'Folder on the server' },
];

/** Where a source reads from, in one line. */
export function sourceWhere(s: Pick<Source, 'type' | 'settings'>): string {
  const v = s.settings as Record<string, string | undefined>;
  if (s.type === 's3') return `s3://${v.bucket}/${v.prefix ?? ''}`;
  if (s.type === 'folder') return v.path ?? '';
  return v.sitemapUrl ?? v.startUrl ?? '';
}

/** A source as people name it: its name, or where it reads from. */
export const sourceLabel = (s: Pick<Source, 'name' | 'type' | 'settings'>) => s.name ?? sourceWhere(s);

/**
 * The source types this server lets the account add, from the sources listing's `allowedTypes` (a
 * folder only where SOURCE_FOLDER_ROOTS grants one). A server that does not say yet offers them all,
 * as before, and refuses a folder it does not allow when the form is sent.
 */
export function allowedSourceTypes(listing: unknown): SourceType[] {
  const said = (listing as { allowedTypes?: unknown } | undefined)?.allowedTypes;
  const known = SOURCE_TYPES.map((t) => t.type);
  if (!Array.isArray(said)) return known;
  return known.filter((t) => said.includes(t));
}

/** A source's include and exclude patterns, as its settings hold them (none: absent or empty). */
export function patternsOf(s: Pick<Source, 'settings'>): { include: string[]; exclude: string[] } {
  const v = s.settings as { include?: unknown; exclude?: unknown };
  const list = (x: unknown) => (Array.isArray(x) ? x.filter((p): p is string => typeof p === 'string') : []);
  return { include: list(v.include), exclude: list(v.exclude) };
}

/** Patterns typed one a line (or separated by commas), blanks left out. */
export const parsePatterns = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter(Boolean);

/** Settings with these patterns: a list left empty is no list (every item is wanted, none excluded). */
export function withPatterns(
  settings: Record<string, unknown>,
  include: string[],
  exclude: string[],
): Record<string, unknown> {
  const { include: _i, exclude: _e, ...rest } = settings;
  return {
    ...rest,
    ...(include.length ? { include } : {}),
    ...(exclude.length ? { exclude } : {}),
  };
}
