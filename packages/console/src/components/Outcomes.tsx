import { Fragment, useState } from 'react';
import type { EvaluationOutcome } from '../api';
import { type MetricName, metricLabel } from '../lib/evaluations';
import { filterOutcomes, type OutcomeFilter, QUALITY_METRICS } from '../lib/results';
import { Listing } from './Listing';

/** Questions shown at a time: "More questions" shows the next ones. */
const PAGE = 50;
/** Retrieved files named per question in the list: the first few, as the rank metrics look at them. */
const FILES_SHOWN = 3;

const fileAt = (r: { filename: string; page: number | null }) =>
  r.page ? `${r.filename} p. ${r.page}` : r.filename;

/** What one question got: the passages retrieved, the answer with its kind and citations, the times. */
function OutcomeDetails({ o }: { o: EvaluationOutcome }) {
  return (
    <div className="outcome" data-testid="outcome">
      <h5>Retrieved passages</h5>
      {o.retrieved.length === 0 ? (
        <p className="muted">Nothing was retrieved.</p>
      ) : (
        <ol className="plain passages" data-testid="passages">
          {o.retrieved.map((r) => (
            <li key={r.chunkId} data-rank={r.rank}>
              <span className="muted">#{r.rank}</span> <span className="filename">{r.filename}</span>
              {r.page ? `, page ${r.page}` : null}{' '}
              <span className="muted small">score {r.score.toFixed(3)}</span>
            </li>
          ))}
        </ol>
      )}
      <h5>Answer</h5>
      {o.answer === null ? (
        <p className="muted">No answer was asked for.</p>
      ) : (
        <div data-testid="answer">
          <p className="muted small" data-testid="answer-kind">
            {o.answer.kind}
            {o.answer.declined ? ' · declined' : null}
          </p>
          <p className="answer-text">{o.answer.text}</p>
          {o.answer.citations.length ? (
            <ul className="plain small" aria-label="Citations" data-testid="citations">
              {o.answer.citations.map((c) => (
                <li key={`${c.n}:${c.chunkId}`}>
                  [{c.n}] <span className="filename">{fileAt(c)}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">No citations.</p>
          )}
        </div>
      )}
      <p className="muted small">
        Search {Math.round(o.searchMs)} ms{o.chatMs === null ? null : ` · answer ${Math.round(o.chatMs)} ms`}
        {o.language ? ` · language ${o.language}` : null}
        {o.tags.length ? ` · tags ${o.tags.join(', ')}` : null}
      </p>
    </div>
  );
}

/**
 * What each question got under one configuration, filtered by outcome (every question, or those that
 * passed or failed a metric, or any metric), 50 at a time; each opens to its passages and answer.
 */
export function Outcomes({
  configuration,
  state,
}: {
  configuration: string;
  state: { data: EvaluationOutcome[] | undefined; error: unknown };
}) {
  const [filter, setFilter] = useState<OutcomeFilter>({ outcome: 'all', metric: '' });
  const [shown, setShown] = useState(PAGE);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const mine = state.data?.filter((o) => o.configuration === configuration);
  const list = mine ? filterOutcomes(mine, filter) : undefined;
  const used = QUALITY_METRICS.filter(([name]) =>
    mine?.some((o) => o.passed.includes(name) || o.failed.includes(name)),
  );
  const toggle = (ordinal: number) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(ordinal)) next.add(ordinal);
      return next;
    });
  const change = (f: OutcomeFilter) => {
    setFilter(f);
    setShown(PAGE);
  };
  return (
    <>
      <form className="key-form filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Show<span className="sr-only"> questions of {configuration}</span>
          <select
            name="outcome"
            value={filter.outcome}
            onChange={(e) => change({ ...filter, outcome: e.target.value as OutcomeFilter['outcome'] })}
          >
            <option value="all">All questions</option>
            <option value="failed">Failed</option>
            <option value="passed">Passed</option>
          </select>
        </label>
        <label>
          Metric<span className="sr-only"> the questions of {configuration} are filtered by</span>
          <select
            name="metric"
            value={filter.metric}
            disabled={filter.outcome === 'all'}
            onChange={(e) => change({ ...filter, metric: e.target.value as MetricName | '' })}
          >
            <option value="">Any metric</option>
            {used.map(([name, label]) => (
              <option key={name} value={name}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {mine && list ? (
          <output className="muted small" data-testid="questions-count" aria-live="polite">
            {list.length} of {mine.length} questions
          </output>
        ) : null}
      </form>
      <Listing
        state={{ data: list, error: state.error }}
        items={(d) => d.slice(0, shown)}
        empty={mine?.length ? 'No question matches.' : 'No question was asked.'}
        label={`Questions of ${configuration}`}
        testId="evaluation-questions"
        stack
        columns={['Question', 'Passed', 'Failed', 'First retrieved']}
        row={(o) => {
          const isOpen = open.has(o.ordinal);
          const id = `outcome-${configuration}-${o.ordinal}`;
          return (
            <Fragment key={o.ordinal}>
              <tr data-ordinal={o.ordinal} data-testid="question">
                <td>
                  <button
                    type="button"
                    className="link-button"
                    aria-expanded={isOpen}
                    aria-controls={isOpen ? id : undefined}
                    onClick={() => toggle(o.ordinal)}
                  >
                    {o.q}
                  </button>
                </td>
                <td data-label="Passed">{o.passed.map(metricLabel).join(', ') || '—'}</td>
                <td data-label="Failed" className="bad-text">
                  {o.failed.map(metricLabel).join(', ') || '—'}
                </td>
                <td data-label="First retrieved">
                  {o.retrieved.length === 0
                    ? 'nothing'
                    : o.retrieved.slice(0, FILES_SHOWN).map(fileAt).join(', ')}
                </td>
              </tr>
              {isOpen ? (
                <tr id={id} className="outcome-row" data-testid="question-details">
                  <td colSpan={4}>
                    <OutcomeDetails o={o} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          );
        }}
      >
        {list && list.length > shown ? (
          <p>
            <button type="button" onClick={() => setShown((n) => n + PAGE)}>
              More questions<span className="sr-only"> of {configuration}</span>
            </button>
          </p>
        ) : null}
      </Listing>
    </>
  );
}
