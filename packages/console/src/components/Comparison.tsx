import { type FormEvent, useState } from 'react';
import { type Evaluation, type EvaluationComparison, evaluationsApi } from '../api';
import { formatDifference, formatMetric, METRICS, metricLabel } from '../lib/evaluations';
import { useAction, useLoad } from '../lib/hooks';
import { ActionNote } from './ActionNote';
import { TableScroll } from './common';

type Paired = EvaluationComparison['configurations'][number];

/** One pair of configurations: each metric of both, the difference with its interval, the changed questions. */
function PairTable({ pair }: { pair: Paired }) {
  const title = pair.a === pair.b ? pair.b : `${pair.a} → ${pair.b}`;
  return (
    <section aria-label={`Comparison of ${title}`}>
      <h4>{title}</h4>
      <p className="muted small">
        {pair.paired
          ? 'Paired: both asked the same questions, so the interval is that of the change on them.'
          : 'Not paired: the questions differ, so the interval is that of two separate measurements.'}
      </p>
      <TableScroll label={`Differences of ${title}`}>
        <table data-testid="comparison">
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">Baseline</th>
              <th scope="col">This one</th>
              <th scope="col">Difference (95 % interval)</th>
            </tr>
          </thead>
          <tbody>
            {METRICS.map(([name, label]) => {
              const m = pair.metrics[name];
              const d = formatDifference(name, m.difference);
              return (
                <tr key={name} data-metric={name}>
                  <th scope="row">{label}</th>
                  <td>{formatMetric(name, m.a).value}</td>
                  <td>{formatMetric(name, m.b).value}</td>
                  <td data-testid="difference">
                    {d.value}
                    {m.difference ? <div className="muted small">{d.interval}</div> : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      {pair.changed.length === 0 ? (
        <p className="muted">No question changed.</p>
      ) : (
        <ul className="plain" data-testid="changed-questions" aria-label={`Changed questions of ${title}`}>
          {pair.changed.map((q) => (
            <li key={q.ordinal}>
              {q.q}
              {q.worse.length ? (
                <div className="small bad-text">worse: {q.worse.map(metricLabel).join(', ')}</div>
              ) : null}
              {q.better.length ? (
                <div className="small">better: {q.better.map(metricLabel).join(', ')}</div>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Puts a completed evaluation beside another completed one of its workspace, chosen as the baseline. */
export function Comparison({ evaluation }: { evaluation: Evaluation }) {
  const others = useLoad(() => evaluationsApi.list(evaluation.workspaceId), [evaluation.workspaceId]);
  const [baseline, setBaseline] = useState('');
  const [result, setResult] = useState<EvaluationComparison>();
  const comparing = useAction();
  const choices = (others.data?.evaluations ?? []).filter(
    (e) => e.id !== evaluation.id && e.status === 'completed',
  );
  if (choices.length === 0) return null;
  const chosen = baseline || choices[0]!.id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (comparing.busy) return;
    void comparing.run(async () => setResult(await evaluationsApi.compare(chosen, evaluation.id)), {
      failed: 'Could not compare',
    });
  };
  return (
    <section aria-labelledby="compare-title">
      <h3 id="compare-title">Compare with another evaluation</h3>
      <form className="key-form" onSubmit={submit}>
        <label>
          Baseline
          <select name="baseline" value={chosen} onChange={(e) => setBaseline(e.target.value)}>
            {choices.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({new Date(c.createdAt).toLocaleString()})
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" aria-disabled={comparing.busy}>
          Compare
        </button>
        <ActionNote action={comparing} />
      </form>
      {result?.configurations.map((pair) => (
        <PairTable key={`${pair.a}:${pair.b}`} pair={pair} />
      ))}
    </section>
  );
}
