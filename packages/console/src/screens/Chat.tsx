import type { AnswerCitation } from '@service/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { sdk } from '../api';
import { ErrorNote } from '../components/common';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { documentHref } from '../lib/links';
import { splitCitationMarkers } from '../lib/text';
import { Link } from '../router';

interface Turn {
  question: string;
  answer: string;
  citations: AnswerCitation[];
  streaming: boolean;
  error?: unknown;
}

const citationHref = (c: AnswerCitation) =>
  documentHref(c.documentId, { mediaType: c.mediaType, page: c.page, start: c.charStart, end: c.charEnd });

/** The answer's text with each `[n]` a link to the passage it cites (once the citations have arrived). */
function Answer({ turn }: { turn: Turn }) {
  const byN = new Map(turn.citations.map((c) => [c.n, c]));
  return (
    <p className="answer" data-testid="answer" aria-live="polite" aria-busy={turn.streaming}>
      {splitCitationMarkers(turn.answer).map((part) => {
        if ('text' in part) return part.text;
        const c = byN.get(part.n);
        return c ? (
          <Link
            key={part.at}
            to={citationHref(c)}
            className="marker"
            title={`${c.filename}${c.page ? `, page ${c.page}` : ''}`}
          >
            [{part.n}]
          </Link>
        ) : (
          <span key={part.at}>[{part.n}]</span>
        );
      })}
      {turn.streaming ? <span className="cursor" aria-hidden="true" /> : null}
    </p>
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
      update(index, { answer: final.answer, citations: final.citations, streaming: false });
    } catch (error) {
      update(index, { streaming: false, error });
    } finally {
      stop.current = undefined;
    }
  };

  return (
    <section>
      <WorkspaceHeader id={workspaceId} current="chat" />
      <p className="muted">
        Answers come only from this workspace's documents; every claim links to the passage it cites.
      </p>
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
                    <Link to={citationHref(c)}>
                      {c.filename}
                      {c.page ? `, page ${c.page}` : ''}
                    </Link>
                    <blockquote>{c.text}</blockquote>
                  </li>
                ))}
              </ol>
            ) : null}
          </li>
        ))}
      </ol>
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
    </section>
  );
}
