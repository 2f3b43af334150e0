import type { AnswerCitation } from '@service/sdk';
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { sdk } from '../api';
import { CitationPlace, citationHref, citationPlace } from '../components/Citation';
import { ErrorNote } from '../components/common';
import { Markdown, useMarkdown } from '../components/Markdown';
import { NothingToSearch } from '../components/NothingToSearch';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { type AnswerKind, quotesIn } from '../lib/answers';
import { useLoad, useTitle } from '../lib/hooks';
import { splitCitationMarkers } from '../lib/text';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

interface Turn {
  question: string;
  answer: string;
  citations: AnswerCitation[];
  /** Once the answer is complete. */
  kind?: AnswerKind;
  streaming: boolean;
  error?: unknown;
}

/** A citation marker: a link to the passage, named for screen readers by the source it cites. */
function Marker({ n, citation }: { n: number; citation: AnswerCitation | undefined }) {
  if (!citation) return <span>[{n}]</span>;
  return (
    <Link to={citationHref(citation)} className="marker" title={citationPlace(citation)}>
      [{n}]<span className="sr-only"> {citationPlace(citation)}</span>
    </Link>
  );
}

/** Text with each `[n]` a link to the passage it cites (once the citations have arrived). */
function withMarkers(text: string, byN: Map<number, AnswerCitation>): ReactNode {
  return splitCitationMarkers(text).map((part) =>
    'text' in part ? part.text : <Marker key={part.at} n={part.n} citation={byN.get(part.n)} />,
  );
}

/**
 * The answer. A written one is Markdown with markers; one made of quotes (no answer model configured:
 * the service quotes the passages' sentences) is shown as what it is, each quote in quotation marks
 * with the marker of its source, under a line that says so; a declined one as a note.
 */
function Answer({ turn }: { turn: Turn }) {
  const renderer = useMarkdown();
  const byN = new Map(turn.citations.map((c) => [c.n, c]));
  if (turn.kind === 'extractive') {
    return (
      <div className="answer" data-testid="answer" data-kind="quoted" aria-live="polite">
        <p className="answer-kind small">
          Quoted from the documents: no answer model is configured, so the answer is their own sentences.
        </p>
        <ul className="quotes">
          {quotesIn(turn.answer).map((q) => (
            <li key={`${q.ns.join(',')}:${q.text}`}>
              <q>{renderer ? renderer.renderInlineMarkdown(q.text) : q.text}</q>{' '}
              {q.ns.map((n) => (
                <Marker key={n} n={n} citation={byN.get(n)} />
              ))}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (turn.kind === 'declined') {
    return (
      <div className="answer" data-testid="answer" data-kind="declined" aria-live="polite">
        <p className="note">{turn.answer}</p>
      </div>
    );
  }
  return (
    <div className="answer" data-testid="answer" aria-live="polite" aria-busy={turn.streaming}>
      <Markdown source={turn.answer} text={(s) => withMarkers(s, byN)} />
      {turn.streaming ? <span className="cursor" aria-hidden="true" /> : null}
    </div>
  );
}

const storageKey = (workspaceId: string) => `docslurp:chat:${workspaceId}`;

/** Finished turns of this tab's conversation, so that following a citation and coming back keeps it. */
function savedTurns(workspaceId: string): Turn[] {
  try {
    return JSON.parse(sessionStorage.getItem(storageKey(workspaceId)) ?? '[]') as Turn[];
  } catch {
    return [];
  }
}

export function ChatScreen({ workspaceId }: { workspaceId: string }) {
  const [turns, setTurns] = useState<Turn[]>(() => savedTurns(workspaceId));
  const [draft, setDraft] = useState('');
  const stop = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => stop.current?.abort(), []);
  useEffect(() => {
    const done = turns.filter((t) => !t.streaming && !t.error);
    sessionStorage.setItem(storageKey(workspaceId), JSON.stringify(done));
  }, [turns, workspaceId]);
  const streaming = turns.some((t) => t.streaming);
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  const { data: availability } = useLoad(
    (signal) => sdk.getAvailability(workspaceId, { signal }),
    [workspaceId],
    (a) => (a.pending.length > 0 ? 3000 : undefined),
  );
  const empty = availability && availability.counts.total - availability.counts.deleted === 0;
  useTitle(`Chat · ${workspace ? workspaceLabel(workspace) : `workspace ${workspaceId}`}`);
  // The renderer for answers' Markdown comes before the first question is asked.
  useMarkdown();

  const update = (index: number, change: Partial<Turn>) =>
    setTurns((all) => all.map((t, i) => (i === index ? { ...t, ...change } : t)));

  const ask = async (e: FormEvent) => {
    e.preventDefault();
    const question = draft.trim();
    if (!question || stop.current) return;
    setDraft('');
    const index = turns.length;
    setTurns((all) => [...all, { question, answer: '', citations: [], streaming: true }]);
    const controller = new AbortController();
    stop.current = controller;
    try {
      const stream = await sdk.chat(
        { workspaceId, q: question, stream: true },
        { signal: controller.signal },
      );
      let answer = '';
      for await (const delta of stream) {
        answer += delta.text;
        update(index, { answer });
      }
      const final = await stream.finalAnswer();
      update(index, {
        answer: final.answer,
        citations: final.citations,
        kind: final.kind,
        streaming: false,
      });
    } catch (error) {
      update(index, { streaming: false, error });
    } finally {
      stop.current = undefined;
    }
  };

  return (
    <section>
      <WorkspaceHeader id={workspaceId} workspace={workspace} current="chat" />
      <p className="muted">
        Answers come only from this workspace's documents; every claim links to the passage it cites.
      </p>
      <NothingToSearch id={workspaceId} availability={availability} />
      <ol className="turns">
        {turns.map((t, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns are only ever appended.
          <li key={i} className="turn">
            <p className="question">{t.question}</p>
            <Answer turn={t} />
            {t.error ? <ErrorNote error={t.error} title="The answer stopped" /> : null}
            {t.citations.length > 0 ? (
              <ol className="citations" data-testid="citations">
                {t.citations.map((c) => (
                  <li key={c.n} value={c.n}>
                    <CitationPlace c={c} />
                    {/* A quoted answer already shows each quote; a written one shows what it drew on. */}
                    {t.kind === 'extractive' ? null : (
                      <blockquote>
                        <Markdown source={c.text} />
                      </blockquote>
                    )}
                  </li>
                ))}
              </ol>
            ) : null}
          </li>
        ))}
      </ol>
      {empty ? null : (
        <form className="ask" onSubmit={ask}>
          <input
            type="text"
            name="question"
            aria-label="Ask a question"
            placeholder="Ask a question about these documents"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
          <button type="submit" className="primary" disabled={streaming}>
            {streaming ? 'Answering…' : 'Ask'}
          </button>
        </form>
      )}
    </section>
  );
}
