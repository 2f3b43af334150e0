import type { Evaluation } from '../api';
import { formatMetric } from '../lib/evaluations';
import { barOf, chartedMetrics, colourOf, QUALITY_METRICS } from '../lib/results';

type Results = NonNullable<Evaluation['results']>[number];

/** Each configuration's colour and name, as every chart of the page draws it. */
export function Legend({ results }: { results: Results[] }) {
  return (
    <ul className="legend" aria-label="Configurations" data-testid="legend">
      {results.map((r, i) => (
        <li key={r.configuration}>
          <span className="swatch" style={{ background: colourOf(i) }} aria-hidden="true" />
          {r.configuration}
        </li>
      ))}
    </ul>
  );
}

/**
 * A chart per quality metric: a bar per configuration, in its colour, with its 95 % interval drawn
 * over it. Every bar is named and numbered in words beside it (what screen readers read out; the
 * drawing itself is hidden from them), and the metrics tables below hold the same numbers.
 */
export function MetricCharts({ results }: { results: Results[] }) {
  const charted = chartedMetrics(results.map((r) => r.metrics));
  const left = QUALITY_METRICS.filter(([name]) => !charted.some(([c]) => c === name));
  return (
    <section aria-labelledby="charts-title">
      <h3 id="charts-title">Metrics</h3>
      <p className="muted small">
        Each bar is a share of the questions the metric applies to; the line across it is its 95 % interval.
      </p>
      <Legend results={results} />
      <div className="charts">
        {charted.map(([name, label]) => (
          <figure key={name} className="chart" data-testid="metric-chart" data-metric={name}>
            <figcaption id={`chart-${name}`}>{label}</figcaption>
            <ul className="chart-rows" aria-labelledby={`chart-${name}`}>
              {results.map((r, i) => {
                const m = r.metrics[name];
                const shown = formatMetric(name, m);
                const bar = m ? barOf(m) : null;
                return (
                  <li
                    key={r.configuration}
                    className="chart-row"
                    data-testid="chart-bar"
                    data-configuration={r.configuration}
                  >
                    <span className="chart-name">{r.configuration}</span>
                    <span className="chart-track" aria-hidden="true">
                      {bar ? (
                        <>
                          <span
                            className="chart-bar"
                            data-testid="bar"
                            style={{ width: `${bar.value}%`, background: colourOf(i) }}
                          />
                          <span
                            className="chart-interval"
                            data-testid="interval"
                            style={{ left: `${bar.low}%`, width: `${bar.high - bar.low}%` }}
                          />
                        </>
                      ) : null}
                    </span>
                    <span className="chart-value">
                      {m ? (
                        <>
                          {shown.value}
                          <span className="sr-only">, 95 % interval {shown.interval}</span>
                          <span className="muted small" aria-hidden="true">
                            {' '}
                            {shown.interval}
                          </span>
                        </>
                      ) : (
                        <>
                          —<span className="sr-only"> no question applies</span>
                        </>
                      )}
                    </span>
                  </li>
                );
              })}
            </ul>
          </figure>
        ))}
      </div>
      {left.length ? (
        <p className="muted small" data-testid="uncharted">
          No question applies to: {left.map(([, label]) => label).join(', ')}.
        </p>
      ) : null}
    </section>
  );
}
