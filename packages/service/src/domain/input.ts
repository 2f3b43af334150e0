import { errors } from '../errors.js';

/** Deeper than any request of this API needs (metadata, filters, chat messages), far from the stack's limit. */
export const MAX_JSON_DEPTH = 32;

/**
 * Refuses what parsed JSON (or a form field) may hold but the rest of the service cannot take: a NUL
 * character, which PostgreSQL refuses in text and JSON, and nesting so deep that serialising it
 * overflows the stack. Checked once at the edge, so each is a 400 naming the field instead of a 500
 * from deep inside. Iterative, and never deeper than the limit, so the check itself cannot overflow.
 */
export function checkInput(value: unknown, where: string): void {
  const named = (path: string) => path || 'the body';
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: where, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) throw errors.invalidCharacters(named(path));
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    // Named by its first two levels: the whole path would be as long as the nesting.
    if (depth >= MAX_JSON_DEPTH)
      throw errors.tooDeeplyNested(named(path.split('.').slice(0, 2).join('.')), MAX_JSON_DEPTH);
    for (const [k, child] of Object.entries(v)) {
      const childPath = path ? `${path}.${k}` : k;
      if (k.includes('\u0000')) throw errors.invalidCharacters(`a key in ${named(path)}`);
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
}
