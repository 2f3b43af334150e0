/**
 * robots.txt as crawlers read it (RFC 9309): the group for our agent name, else the `*` group; the
 * longest matching rule wins, Allow over Disallow on a tie; `*` matches any characters and `$` ends.
 */
export class RobotsRules {
  private constructor(private readonly rules: { allow: boolean; pattern: RegExp; length: number }[]) {}

  static allowAll(): RobotsRules {
    return new RobotsRules([]);
  }

  static parse(text: string, agent: string): RobotsRules {
    const groups: { agents: string[]; rules: { allow: boolean; path: string }[] }[] = [];
    let current: (typeof groups)[number] | undefined;
    let lastWasAgent = false;
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.replace(/#.*/, '').trim();
      const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
      if (!m) continue;
      const field = m[1]!.toLowerCase();
      const value = m[2]!.trim();
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
        if (value) current.rules.push({ allow: field === 'allow', path: value });
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
        pattern: pathPattern(r.path),
      })),
    );
  }

  allows(url: URL): boolean {
    const target = url.pathname + url.search;
    let best: { allow: boolean; length: number } | undefined;
    for (const rule of this.rules) {
      if (!rule.pattern.test(target)) continue;
      if (!best || rule.length > best.length || (rule.length === best.length && rule.allow)) best = rule;
    }
    return best?.allow ?? true;
  }
}

/** A robots.txt path as a regular expression: `*` is any characters, a final `$` anchors the end. */
function pathPattern(path: string): RegExp {
  const anchored = path.endsWith('$');
  const body = (anchored ? path.slice(0, -1) : path)
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}
