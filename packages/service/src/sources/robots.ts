/** Most rules of one group kept (real robots.txt files have tens or hundreds). */
const MAX_RULES = 2000;
/** Rule paths longer than this are ignored: no path a crawler asks for is longer. */
const MAX_RULE_CHARS = 2048;
/** Crawl-delay is honoured up to this many seconds; a site asking for more gets this. */
export const MAX_CRAWL_DELAY_SECONDS = 10;

/**
 * A robots.txt path pattern: literal pieces between `*` wildcards, and whether a final `$` anchors
 * the end. Matched piece by piece, each at its leftmost place (Knuth–Morris–Pratt), which is
 * correct for patterns whose only wildcard matches any characters and takes time linear in the
 * path and the pattern. A regular expression built from the pattern (`*` as `.*`) backtracks
 * exponentially on `/*a*a*a…b` against a path of a's: one rule froze the whole process.
 */
export class PathPattern {
  private readonly pieces: { text: string; failure: Int32Array }[];
  private readonly anchored: boolean;

  constructor(pattern: string) {
    this.anchored = pattern.endsWith('$');
    const body = this.anchored ? pattern.slice(0, -1) : pattern;
    this.pieces = body.split('*').map((text) => ({ text, failure: failureTable(text) }));
  }

  /** Whether the pattern matches the start of `target` (the whole of it when anchored). */
  matches(target: string): boolean {
    const { pieces } = this;
    const first = pieces[0]!.text;
    if (!target.startsWith(first)) return false;
    if (pieces.length === 1) return !this.anchored || target.length === first.length;
    let at = first.length;
    const last = pieces.length - 1;
    for (let i = 1; i < last; i++) {
      const found = indexFrom(target, pieces[i]!, at);
      if (found < 0) return false;
      at = found + pieces[i]!.text.length;
    }
    const end = pieces[last]!.text;
    // After the last wildcard: anywhere after `at`, or, anchored, exactly at the end.
    if (this.anchored) return target.length - end.length >= at && target.endsWith(end);
    return indexFrom(target, pieces[last]!, at) >= 0;
  }
}

function failureTable(p: string): Int32Array {
  const f = new Int32Array(p.length);
  for (let i = 1, k = 0; i < p.length; i++) {
    while (k > 0 && p[i] !== p[k]) k = f[k - 1]!;
    if (p[i] === p[k]) k++;
    f[i] = k;
  }
  return f;
}

/** The first index of `piece` in `text` at or after `from`; -1 if none. Linear in both. */
function indexFrom(text: string, piece: { text: string; failure: Int32Array }, from: number): number {
  const p = piece.text;
  if (p.length === 0) return from <= text.length ? from : -1;
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== p[k]) k = piece.failure[k - 1]!;
    if (text[i] === p[k]) k++;
    if (k === p.length) return i - p.length + 1;
  }
  return -1;
}

/** `Field: value`, field names being letters and dashes. */
function fieldOf(line: string): { field: string; value: string } | undefined {
  const colon = line.indexOf(':');
  if (colon <= 0) return undefined;
  const field = line.slice(0, colon).trim();
  if (!/^[A-Za-z-]+$/.test(field)) return undefined;
  return { field: field.toLowerCase(), value: line.slice(colon + 1).trim() };
}

/**
 * robots.txt as crawlers read it (RFC 9309): the group for our agent name, else the `*` group; the
 * longest matching rule wins, Allow over Disallow on a tie; `*` matches any characters and `$` ends.
 * The group's Crawl-delay (not in the RFC, widely honoured) paces the crawl of that host.
 */
export class RobotsRules {
  private constructor(
    private readonly rules: { allow: boolean; pattern: PathPattern; length: number }[],
    /** Seconds between two requests to the host the site asked for; undefined when it did not. */
    readonly crawlDelaySeconds: number | undefined,
  ) {}

  static allowAll(): RobotsRules {
    return new RobotsRules([], undefined);
  }

  static parse(text: string, agent: string): RobotsRules {
    type Group = { agents: string[]; rules: { allow: boolean; path: string }[]; delay?: number };
    const groups: Group[] = [];
    let current: Group | undefined;
    let lastWasAgent = false;
    for (const raw of text.split('\n')) {
      const hash = raw.indexOf('#');
      const parsed = fieldOf(hash >= 0 ? raw.slice(0, hash) : raw);
      if (!parsed) continue;
      const { field, value } = parsed;
      if (field === 'user-agent') {
        if (!current || !lastWasAgent) {
          current = { agents: [], rules: [] };
          groups.push(current);
        }
        current.agents.push(value.toLowerCase());
        lastWasAgent = true;
      } else if ((field === 'allow' || field === 'disallow') && current) {
        lastWasAgent = false;
        // An empty Disallow allows everything: no rule.
        if (value && value.length <= MAX_RULE_CHARS && current.rules.length < MAX_RULES)
          current.rules.push({ allow: field === 'allow', path: value });
      } else if (field === 'crawl-delay' && current) {
        lastWasAgent = false;
        const seconds = Number(value);
        if (Number.isFinite(seconds) && seconds >= 0) current.delay = seconds;
      } else lastWasAgent = false;
    }
    const name = agent.toLowerCase();
    const group =
      groups.find((g) => g.agents.some((a) => a !== '*' && name.includes(a))) ??
      groups.find((g) => g.agents.includes('*'));
    return new RobotsRules(
      (group?.rules ?? []).map((r) => ({
        allow: r.allow,
        length: r.path.length,
        pattern: new PathPattern(r.path),
      })),
      group?.delay === undefined ? undefined : Math.min(group.delay, MAX_CRAWL_DELAY_SECONDS),
    );
  }

  allows(url: URL): boolean {
    const target = url.pathname + url.search;
    let best: { allow: boolean; length: number } | undefined;
    for (const rule of this.rules) {
      if (!rule.pattern.matches(target)) continue;
      if (!best || rule.length > best.length || (rule.length === best.length && rule.allow)) best = rule;
    }
    return best?.allow ?? true;
  }
}
