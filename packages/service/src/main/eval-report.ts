/** How `docslurp eval` shows an evaluation: its metrics as a table, and what dropped against a baseline. */
import type { Comparison } from '../evaluation/compare.js';
import { CHECK_METRICS, LATENCY_METRICS, type MetricName } from '../evaluation/metrics.js';
import type { evaluationView } from '../http/evaluation-views.js';

/** The evaluation as the API returns it, with the comparison `--json` adds. */
export type EvaluationJson = ReturnType<typeof evaluationView> & { comparison?: Comparison };

type Metric = { value: number; low: number; high: number; n: number } | null;

const QUALITY = Object.keys(CHECK_METRICS) as MetricName[];
const ALL_METRICS: MetricName[] = [...QUALITY, ...LATENCY_METRICS];
/** Quality metrics where a rise is the loss; latency metrics never fail the gate. */
const RISE_IS_DROP = new Set<MetricName>(['falseDeclines']);

const fmt = (v: number, latency: boolean) => (latency ? v.toFixed(1) : v.toFixed(3));

function metricCell(m: Metric, latency: boolean): string {
  return m ? `${fmt(m.value, latency)} [${fmt(m.low, latency)}, ${fmt(m.high, latency)}]` : '–';
}

/** The metrics as a table for a person: one block per configuration, with the comparison if any. */
export function metricsTable(
  e: EvaluationJson,
  comparison: Comparison | undefined,
  dropped: Set<string>,
): string {
  const lines: string[] = [
    `Evaluation ${e.id} "${e.name}": ${e.status}, ${e.progress.total} questions asked`,
  ];
  for (const r of e.results ?? []) {
    const cmp = comparison?.configurations.find((c) => c.b === r.configuration);
    lines.push(
      '',
      `Configuration "${r.configuration}"${cmp ? ` against baseline "${cmp.a}" of ${comparison?.a}` : ''}`,
    );
    const header = ['metric', 'value [low, high]', 'n'];
    if (cmp) header.push('baseline', 'difference [low, high]', '');
    const rows: string[][] = [header];
    for (const name of ALL_METRICS) {
      const latency = (LATENCY_METRICS as readonly string[]).includes(name);
      const m = r.metrics[name] as Metric;
      const row = [name, metricCell(m, latency), m ? String(m.n) : ''];
      if (cmp) {
        const c = cmp.metrics[name];
        row.push(
          metricCell(c.a, latency),
          metricCell(c.difference, latency),
          dropped.has(`${r.configuration}:${name}`) ? 'DROPPED' : '',
        );
      }
      rows.push(row);
    }
    const widths = header.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
    for (const row of rows)
      lines.push(
        row
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      );
  }
  return `${lines.join('\n')}\n`;
}

/** The quality metrics that dropped by more than `tolerance`, as `configuration:metric`. */
export function droppedMetrics(comparison: Comparison, tolerance: number): { key: string; text: string }[] {
  const out: { key: string; text: string }[] = [];
  for (const c of comparison.configurations)
    for (const name of QUALITY) {
      const d = c.metrics[name]?.difference;
      if (!d) continue;
      const drop = RISE_IS_DROP.has(name) ? d.value > tolerance : d.value < -tolerance;
      if (drop)
        out.push({
          key: `${c.b}:${name}`,
          text: `${name} (configuration "${c.b}"): ${c.metrics[name].a?.value.toFixed(3)} -> ${c.metrics[name].b?.value.toFixed(3)}, difference ${d.value.toFixed(3)} [${d.low.toFixed(3)}, ${d.high.toFixed(3)}]`,
        });
    }
  return out;
}
