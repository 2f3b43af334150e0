import type { Evaluation, EvaluationOutcome } from '../api';
import { axisMax, colourOf, histogram } from '../lib/results';

type Results = NonNullable<Evaluation['results']>[number];

/** Bins of a histogram: enough to show a shape, few enough to stay readable on a phone. */
const BINS = 12;

const KINDS = [
  { kind: 'search', label: 'Search', p50: 'searchP50Ms', p95: 'searchP95Ms' },
  { kind: 'chat', label: 'Answer', p50: 'chatP50Ms', p95: 'chatP95Ms' },
] as const;

type Kind = (typeof KINDS)[number];

const timeOf = (o: EvaluationOutcome, kind: Kind['kind']) => (kind === 'search' ? o.searchMs : o.chatMs);

const ms = (v: number) => `${Math.round(v)} ms`;

/** Where a marker's label goes: beside its line, inside the chart near either end. */
const markerSide = (at: number, preferred: 'before' | 'after') =>
  at < 20 ? 'after' : at > 80 ? 'before' : preferred;

function Histogram({
  values,
  max,
  colour,
  p50,
  p95,
  title,
}: {
  values: number[];
  max: number;
  colour: string;
  p50: number | null;
  p95: number | null;
  title: string;
}) {
  const bins = histogram(values, max, BINS);
  const most = Math.max(1, ...bins.map((b) => b.count));
  const markers = [
    { name: 'p50', at: p50, side: 'before' as const },
    { name: 'p95', at: p95, side: 'after' as const },
  ].flatMap((m) => (m.at === null ? [] : [{ ...m, pos: Math.min(100, (m.at / max) * 100) }]));
  return (
    <>
      <div className="histogram" aria-hidden="true">
        {bins.map((b) => (
          <span
            key={b.from}
            className="histogram-bin"
            data-testid="bin"
            data-count={b.count}
            style={{ height: `${(b.count / most) * 100}%`, background: colour }}
          />
        ))}
        {markers.map((m) => (
          <span
            key={m.name}
            className={`histogram-marker ${markerSide(m.pos, m.side)}`}
            data-testid={`marker-${m.name}`}
            style={{ left: `${m.pos}%` }}
          >
            <span className="histogram-marker-label">{m.name}</span>
          </span>
        ))}
      </div>
      <div className="histogram-axis muted small" aria-hidden="true">
        <span>0 ms</span>
        <span>{ms(max)}</span>
      </div>
      {/* A table's width ignores the hidden class's 1 px: the box around it holds it in. */}
      <div className="sr-only">
        <table>
          <caption>{title}, questions per span of time</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Questions</th>
            </tr>
          </thead>
          <tbody>
            {bins.map((b) => (
              <tr key={b.from}>
                <td>
                  {ms(b.from)} to {ms(b.to)}
                </td>
                <td>{b.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * How long search and answers took, per configuration: a histogram of each question's time on one
 * axis per kind (so configurations compare at a glance), with the evaluation's p50 and p95 marked.
 */
export function LatencyDistribution({
  results,
  outcomes,
}: {
  results: Results[];
  outcomes: EvaluationOutcome[];
}) {
  const kinds = KINDS.flatMap((k) => {
    const times = outcomes.flatMap((o) => {
      const t = timeOf(o, k.kind);
      return t === null ? [] : [t];
    });
    return times.length ? [{ ...k, max: axisMax(Math.max(...times)) }] : [];
  });
  return (
    <section aria-labelledby="latency-title">
      <h3 id="latency-title">Latency</h3>
      <p className="muted small">
        Each question's time, counted in {BINS} spans; the lines mark the p50 and p95 of the metrics.
      </p>
      <div className="charts">
        {kinds.map((k) =>
          results.map((r, i) => {
            const values = outcomes.flatMap((o) => {
              const t = o.configuration === r.configuration ? timeOf(o, k.kind) : null;
              return t === null ? [] : [t];
            });
            if (values.length === 0) return null;
            const p50 = r.metrics[k.p50]?.value ?? null;
            const p95 = r.metrics[k.p95]?.value ?? null;
            const title = `${k.label} times of ${r.configuration}`;
            return (
              <figure
                key={`${k.kind}:${r.configuration}`}
                className="chart"
                data-testid="latency"
                data-kind={k.kind}
                data-configuration={r.configuration}
              >
                <figcaption>{title}</figcaption>
                <Histogram
                  values={values}
                  max={k.max}
                  colour={colourOf(i)}
                  p50={p50}
                  p95={p95}
                  title={title}
                />
                <p className="small" data-testid="latency-summary">
                  {values.length} questions · p50 {p50 === null ? '—' : ms(p50)} · p95{' '}
                  {p95 === null ? '—' : ms(p95)}
                </p>
              </figure>
            );
          }),
        )}
      </div>
    </section>
  );
}
