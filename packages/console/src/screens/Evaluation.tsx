import { ApiError, type Evaluation, evaluationsApi, isNotFound, sdk } from '../api';
import { Comparison } from '../components/Comparison';
import { ErrorNote, Loading, Status, TableScroll, When } from '../components/common';
import { Groups } from '../components/Groups';
import { LatencyDistribution } from '../components/Latency';
import { MetricCharts } from '../components/MetricCharts';
import { Outcomes } from '../components/Outcomes';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { describeConfiguration, formatMetric, inProgress, METRICS, progressText } from '../lib/evaluations';
import { useLoad, useTitle } from '../lib/hooks';
import { colourOf } from '../lib/results';
import { Link } from '../router';

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

/** One evaluation: its state while it runs, then per configuration its metrics and its questions. */
export function EvaluationScreen({ workspaceId, id }: { workspaceId: string; id: string }) {
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  const { data: evaluation, error } = useLoad(
    () => evaluationsApi.get(id),
    [id],
    (e) => (inProgress(e) ? 1000 : undefined),
  );
  useTitle(evaluation ? `${evaluation.name} · Quality` : 'Evaluation');
  // Every question's outcome, once there are results: the latency histograms and the filters need all.
  const hasResults = Boolean(evaluation?.results);
  const outcomes = useLoad(
    async (signal) => (hasResults ? evaluationsApi.allQuestions(id, signal) : undefined),
    [id, hasResults],
  );
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
      {evaluation.results?.length ? (
        <>
          <MetricCharts results={evaluation.results} />
          {outcomes.data ? (
            <LatencyDistribution results={evaluation.results} outcomes={outcomes.data} />
          ) : null}
          <Groups results={evaluation.results} />
        </>
      ) : null}
      {(evaluation.results ?? []).map((r, i) => {
        const configuration = evaluation.configurations.find((c) => c.name === r.configuration);
        return (
          <section key={r.configuration} aria-labelledby={`configuration-${r.configuration}`}>
            <h3 id={`configuration-${r.configuration}`}>
              <span className="swatch" style={{ background: colourOf(i) }} aria-hidden="true" /> Configuration{' '}
              {r.configuration}
            </h3>
            {configuration ? <p className="muted small">{describeConfiguration(configuration)}</p> : null}
            <MetricsTable results={r} />
            <h4>Questions</h4>
            <Outcomes configuration={r.configuration} state={outcomes} />
          </section>
        );
      })}
      {evaluation.status === 'completed' ? <Comparison evaluation={evaluation} /> : null}
    </section>
  );
}
