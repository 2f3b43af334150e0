/**
 * Where a process's main thread spent its time, from a V8 CPU profile (`node --cpu-prof`): the
 * functions with the most self time and the most inclusive time, as shares of the busy time (idle
 * excluded). Native work LanceDB does on its own threads does not appear: it is not on this thread.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export function summarizeProfile(dir: string, top = 15) {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no CPU profile in ${dir}`);
  const p = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  p.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const dt = p.timeDeltas[i] ?? 0;
    if (node.callFrame.functionName === '(idle)') return;
    busy += dt;
    self.set(name(node), (self.get(name(node)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = name(byId.get(cur)!);
      if (seen.has(k) || k.startsWith('(root)')) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    }
  });
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, share: Number((us / busy).toFixed(3)) }));
  return { busySeconds: Number((busy / 1e6).toFixed(1)), self: ranked(self), inclusive: ranked(inclusive) };
}
