import { BadRequestError } from '@service/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { evaluationsApi, type QuestionSetSummary, sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { Details, Hidden, ProgressBar, Status, When } from '../components/common';
import { Listing } from '../components/Listing';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { mayEdit, useUser } from '../lib/access';
import {
  type AnswersChoice,
  configurationOf,
  inProgress,
  progressText,
  type SearchChoice,
} from '../lib/evaluations';
import { type Action, useAction, useLoad, useTitle } from '../lib/hooks';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

/** A refused question file's problems, by line, under the error that says it was refused. */
function Problems({ action }: { action: Action }) {
  const error = action.outcome?.error;
  if (!(error instanceof BadRequestError) || error.problems.length === 0) return null;
  return (
    <ul className="small bad-text" data-testid="question-problems" aria-label="Problems of the file">
      {error.problems.map((p) => (
        <li key={`${p.line}:${p.message}`}>
          line {p.line}: {p.message}
        </li>
      ))}
    </ul>
  );
}

/** Uploads a question file (JSONL, CSV or JSON) as a new set of the workspace. */
function UploadForm({ workspaceId, onUploaded }: { workspaceId: string; onUploaded: () => void }) {
  const uploading = useAction(onUploaded);
  const [name, setName] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (uploading.busy || !file) return;
    void uploading.run(
      async () => {
        const set = await sdk.questionSets.create(workspaceId, {
          ...(name.trim() ? { name: name.trim() } : {}),
          file: { filename: file.name, data: file },
        });
        setName('');
        if (fileInput.current) fileInput.current.value = '';
        return set;
      },
      { done: 'The question set is stored.', failed: 'The question file was refused' },
    );
  };
  return (
    <form className="key-form" onSubmit={submit} aria-labelledby="new-set-title">
      <h2 id="new-set-title">Add a question set</h2>
      <p className="muted small">
        A JSONL, CSV or JSON file of questions: only <code>q</code> is needed; <code>answers</code>,{' '}
        <code>expected</code> and <code>unanswerable</code> say what a right result is.
      </p>
      <label>
        Question file
        <input ref={fileInput} type="file" name="file" required accept=".jsonl,.ndjson,.csv,.json" />
      </label>
      <label>
        Name <span className="muted small">(optional: the file's name)</span>
        <input
          type="text"
          name="name"
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" aria-disabled={uploading.busy}>
        Upload questions
      </button>
      <ActionNote action={uploading} />
      <Problems action={uploading} />
    </form>
  );
}

/** Starts an evaluation of a set with one configuration; what is left at "server default" is the server's. */
function EvaluateForm({
  set,
  onStarted,
  onClose,
}: {
  set: QuestionSetSummary;
  onStarted: () => void;
  onClose: () => void;
}) {
  const starting = useAction(onStarted);
  const [mode, setMode] = useState<SearchChoice>('');
  const [topK, setTopK] = useState('');
  const [answers, setAnswers] = useState<AnswersChoice>('');
  const first = useRef<HTMLSelectElement>(null);
  // The person just asked to evaluate: the form is where they go next.
  useEffect(() => first.current?.focus(), []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (starting.busy) return;
    void starting.run(() => evaluationsApi.create(set.id, [configurationOf(mode, topK, answers)]), {
      done: `The evaluation of ${set.name} is queued.`,
      failed: 'The evaluation did not start',
    });
  };
  return (
    <form
      className="key-form"
      onSubmit={submit}
      aria-labelledby="evaluate-title"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <h2 id="evaluate-title">Evaluate {set.name}</h2>
      <label>
        Search
        <select
          ref={first}
          name="mode"
          value={mode}
          onChange={(e) => setMode(e.target.value as SearchChoice)}
        >
          <option value="">Server default</option>
          <option value="lexical">Lexical</option>
          <option value="vector">Vector</option>
          <option value="hybrid">Hybrid</option>
        </select>
      </label>
      <label>
        Passages retrieved <span className="muted small">(empty: 10)</span>
        <input
          type="number"
          name="topK"
          min={1}
          max={100}
          value={topK}
          onChange={(e) => setTopK(e.target.value)}
        />
      </label>
      <label>
        Answers
        <select name="answers" value={answers} onChange={(e) => setAnswers(e.target.value as AnswersChoice)}>
          <option value="">Server default</option>
          <option value="extractive">Extractive (the documents' sentences)</option>
          <option value="model">The answer model</option>
          <option value="none">None: passages only</option>
        </select>
      </label>
      <div className="row">
        <button type="submit" className="primary" aria-disabled={starting.busy}>
          Start evaluation
        </button>
        <button type="button" className="link" onClick={onClose}>
          Close<Hidden> the evaluation form</Hidden>
        </button>
      </div>
      <ActionNote action={starting} />
    </form>
  );
}

/** A workspace's question sets and evaluations: upload a set, evaluate it, watch and cancel evaluations. */
export function QualityScreen({ workspaceId }: { workspaceId: string }) {
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  const sets = useLoad((signal) => sdk.questionSets.list(workspaceId, { signal }), [workspaceId]);
  // While an evaluation is queued or running, look again every second: its progress and ETA move.
  const evaluations = useLoad(
    () => evaluationsApi.list(workspaceId),
    [workspaceId],
    (d) => (d.evaluations.some(inProgress) ? 1000 : undefined),
  );
  const action = useAction(evaluations.reload);
  const [evaluating, setEvaluating] = useState<QuestionSetSummary>();
  // Adding sets is for those who may edit the workspace; everyone who may search it evaluates.
  const user = useUser();
  const editable = workspace ? mayEdit(user, workspace.access) : false;
  useTitle(`Quality${workspace ? ` · ${workspaceLabel(workspace)}` : ''}`);

  return (
    <section>
      <WorkspaceHeader id={workspaceId} workspace={workspace} current="quality" />
      <p className="muted">
        Question sets are your own questions with what a right result is; an evaluation asks them all and
        scores what search and answers got, so that a settings change or an upgrade can be measured.
      </p>

      <h2>Question sets</h2>
      <Listing
        state={sets}
        items={(d) => d}
        empty={editable ? 'No question sets yet: add one below.' : 'No question sets yet.'}
        label="Question sets of the workspace"
        testId="question-sets"
        stack
        columns={['Question set', 'Questions', 'Created', { label: 'Actions', hidden: true }]}
        row={(s) => (
          <tr key={s.id} data-question-set={s.name}>
            <td>{s.name}</td>
            <td data-label="Questions">{s.questionCount}</td>
            <td data-label="Created">
              <When iso={s.createdAt} />
            </td>
            <td className="actions">
              <button type="button" aria-label={`Evaluate ${s.name}`} onClick={() => setEvaluating(s)}>
                Evaluate
              </button>
            </td>
          </tr>
        )}
      />
      {evaluating ? (
        <EvaluateForm
          key={evaluating.id}
          set={evaluating}
          onStarted={evaluations.reload}
          onClose={() => setEvaluating(undefined)}
        />
      ) : null}
      {editable ? <UploadForm workspaceId={workspaceId} onUploaded={sets.reload} /> : null}

      <h2>Evaluations</h2>
      <ActionNote action={action} />
      <Listing
        state={evaluations}
        items={(d) => d.evaluations}
        empty="No evaluations yet: evaluate a question set."
        label="Evaluations of the workspace"
        testId="evaluations"
        stack
        columns={['Evaluation', 'State', 'Progress', 'Started', { label: 'Actions', hidden: true }]}
        row={(e) => (
          <tr key={e.id} data-evaluation={e.id}>
            <td>
              <Link to={`/workspaces/${workspaceId}/quality/${e.id}`}>{e.name}</Link>
              {e.error ? (
                <div className="small bad-text">
                  {e.error.message}
                  <Details of={e.name}>
                    code <code>{e.error.code}</code>
                  </Details>
                </div>
              ) : null}
            </td>
            <td data-label="State">
              <Status value={e.status} />
            </td>
            <td data-label="Progress" data-testid="evaluation-progress">
              {progressText(e)}
              {inProgress(e) ? (
                <ProgressBar
                  value={e.progress.total ? e.progress.done / e.progress.total : 0}
                  label={`Progress of ${e.name}`}
                  valueText={progressText(e)}
                />
              ) : null}
            </td>
            <td data-label="Started">
              <When iso={e.startedAt ?? e.createdAt} />
            </td>
            <td className="actions">
              {inProgress(e) ? (
                <ConfirmButton
                  label="Cancel"
                  confirmLabel="Cancel the evaluation"
                  keepLabel="Let it run"
                  target={e.name}
                  onConfirm={() =>
                    action.run(() => evaluationsApi.cancel(e.id), {
                      done: `${e.name} is cancelled.`,
                      failed: 'Could not cancel',
                    })
                  }
                />
              ) : null}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
