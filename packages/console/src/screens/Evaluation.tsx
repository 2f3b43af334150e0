import { useState } from 'react';
import { ApiError, type Evaluation, type EvaluationOutcome, evaluationsApi, isNotFound, sdk } from '../api';
import { Comparison } from '../components/Comparison';
import { ErrorNote, Loading, Status, TableScroll, When } from '../components/common';
import { Listing } from '../components/Listing';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import {
  describeConfiguration,
  formatMetric,
  inProgress,
  METRICS,
  metricLabel,
  progressText,
} from '../lib/evaluations';
import { useAction, useLoad, useTitle } from '../lib/hooks';
import { Link } from '../router';

/** Questions read at a time: "More questions" reads the next ones. */
const PAGE = 50;
/** Retrieved files named per question: the first few, as the rank metrics look at them. */
const FILES_SHOWN = 3;

type Results = NonNullable<Evaluation['results']>[number];

/** One configuration's metrics: value, 95 % interval and the questions each is over. */
function MetricsTable({ results }: { results: Results }) {
  return (
    <TableScroll label={`Metrics of ${results.configuration}`}>
      <table data-testid="metrics" data-configuration={results.configuration}>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">Value</th>
            <th scope="col">95 % interval</th>
            <th scope="col">Questions</th>
          </tr>
        </thead>
        <tbody>
          {METRICS.map(([name, label]) => {
            const m = results.metrics[name];
            const shown = formatMetric(name, m);
            return (
              <tr key={name} data-metric={name}>
                <th scope="row">{label}</th>
                <td data-testid="metric-value">{shown.value}</td>
                <td>{shown.interval}</td>
                <td>{m ? m.n : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** What each question got under one configuration, read a page at a time. */
function Questions({ evaluation, configuration }: { evaluation: Evaluation; configuration: string }) {
  const [pages, setPages] = useState<{ questions: EvaluationOutcome[]; nextOffset: number | null }>();
  const first = useLoad(
    () => evaluationsApi.questions(evaluation.id, configuration, 0, PAGE),
    [evaluation.id, configuration],
  );
  const more = useAction();
  const shown = pages ?? first.data;
  const loadMore = () => {
    const from = shown?.nextOffset;
    if (more.busy || from === null || from === undefined || !shown) return;
    void more.run(
      async () => {
        const next = await evaluationsApi.questions(evaluation.id, configuration, from, PAGE);
        setPages({ questions: [...shown.questions, ...next.questions], nextOffset: next.nextOffset });
      },
      { failed: 'Could not read more questions' },
    );
  };
  return (
    <Listing
      state={{ data: shown, error: first.error }}
      items={(d) => d.questions}
      empty="No question was asked."
      label={`Questions of ${configuration}`}
      testId="evaluation-questions"
      stack
      columns={['Question', 'Passed', 'Failed', 'First retrieved']}
      row={(o) => (
        <tr key={o.ordinal} data-ordinal={o.ordinal}>
          <td>{o.q}</td>
          <td data-label="Passed">{o.passed.map(metricLabel).join(', ') || '—'}</td>
          <td data-label="Failed" className="bad-text">
            {o.failed.map(metricLabel).join(', ') || '—'}
          </td>
          <td data-label="First retrieved">
            {o.retrieved.length === 0
              ? 'nothing'
              : o.retrieved
                  .slice(0, FILES_SHOWN)
                  .map((r) => (r.page ? `${r.filename} p. ${r.page}` : r.filename))
                  .join(', ')}
          </td>
        </tr>
      )}
    >
      {shown?.nextOffset ? (
        <p>
          <button type="button" aria-disabled={more.busy} onClick={loadMore}>
            More questions<span className="sr-only"> of {configuration}</span>
          </button>
        </p>
      ) : null}
      {more.outcome?.error ? <ErrorNote error={more.outcome.error} title={more.outcome.title} /> : null}
    </Listing>
  );
}

/** One evaluation: its state while it runs, then per configuration its metrics and its questions. */
export function EvaluationScreen({ workspaceId, id }: { workspaceId: string; id: string }) {
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  const { data: evaluation, error } = useLoad(
    () => evaluationsApi.get(id),
    [id],
    (e) => (inProgress(e) ? 1000 : undefined),
  );
  useTitle(evaluation ? `${evaluation.name} · Quality` : 'Evaluation');
  const header = <WorkspaceHeader id={workspaceId} workspace={workspace} current="quality" />;
  if (error && isNotFound(error))
    return (
      <section>
        {header}
        <h2>Evaluation not found</h2>
        <p>
          There is no evaluation <code>{id}</code> you may see.{' '}
          <Link to={`/workspaces/${workspaceId}/quality`}>All evaluations</Link>
        </p>
      </section>
    );
  if (error && !evaluation) return <ErrorNote error={error} />;
  if (!evaluation) return <Loading />;
  return (
    <section>
      {header}
      <p className="crumbs">
        <Link to={`/workspaces/${workspaceId}/quality`}>Quality</Link> /
      </p>
      <h2>{evaluation.name}</h2>
      <p data-testid="evaluation-state">
        <Status value={evaluation.status} /> <span className="muted small">{progressText(evaluation)}</span>
      </p>
      <p className="muted small">
        Questions of {evaluation.questionSetName} · by {evaluation.createdBy} · started{' '}
        <When iso={evaluation.startedAt} /> · finished <When iso={evaluation.finishedAt} />
      </p>
      {evaluation.error ? (
        <ErrorNote
          error={new ApiError(evaluation.error.message, 200, evaluation.error.code, undefined)}
          title="The evaluation failed"
        />
      ) : null}
      {(evaluation.results ?? []).map((r) => {
        const configuration = evaluation.configurations.find((c) => c.name === r.configuration);
        return (
          <section key={r.configuration} aria-labelledby={`configuration-${r.configuration}`}>
            <h3 id={`configuration-${r.configuration}`}>Configuration {r.configuration}</h3>
            {configuration ? <p className="muted small">{describeConfiguration(configuration)}</p> : null}
            <MetricsTable results={r} />
            <h4>Questions</h4>
            <Questions evaluation={evaluation} configuration={r.configuration} />
          </section>
        );
      })}
      {evaluation.status === 'completed' ? <Comparison evaluation={evaluation} /> : null}
    </section>
  );
}
