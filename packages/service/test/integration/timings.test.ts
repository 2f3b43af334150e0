import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * `?timings=true` (issue 43): search and chat say how many milliseconds each stage took, as RAGFlow
 * shows per chat turn; without it, responses are as before.
 */
let svc: TestService;
let api: ReturnType<typeof client>;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.key(['ingest', 'search']);
  api = client(svc.url, key);
  const up = await api.upload([
    { name: 'leave.md', content: '# Leave\n\nEvery employee receives 25 days of paid vacation per year.\n' },
  ]);
  expect(up.status).toBe(202);
  workspaceId = up.body.workspace.id;
  await api.waitForRun(up.body.run.id);
}, 120_000);
afterAll(() => svc?.close());

const stagesAddUp = (timings: Record<string, number>, stages: string[]) => {
  expect(Object.keys(timings).sort()).toEqual([...stages, 'totalMs'].sort());
  for (const v of Object.values(timings)) expect(v).toBeGreaterThanOrEqual(0);
  const sum = stages.reduce((t, s) => t + timings[s]!, 0);
  // Stages are laps of one clock: together they are at most the total (rounding aside).
  expect(sum).toBeLessThanOrEqual(timings.totalMs! + 0.05);
};

describe('timings of a search and an answer', () => {
  it('are given per stage when asked for, and not otherwise', async () => {
    const body = { workspaceId, q: 'How many vacation days?' };
    const plain = await api.post('/v1/search', body);
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('timings');
    const timed = await api.post('/v1/search?timings=true', body);
    expect(timed.status, JSON.stringify(timed.body)).toBe(200);
    expect(timed.body.results[0].citation.filename).toBe('leave.md');
    stagesAddUp(timed.body.timings, ['prepareMs', 'retrievalMs', 'rankingMs', 'snippetsMs']);
    const byQuery = await api.get(`/v1/search?workspaceId=${workspaceId}&q=vacation&timings=true`);
    expect(byQuery.status).toBe(200);
    stagesAddUp(byQuery.body.timings, ['prepareMs', 'retrievalMs', 'rankingMs', 'snippetsMs']);
    expect((await api.post('/v1/search?timings=yes', body)).status).toBe(400);

    const chat = await api.post('/v1/search/chat?timings=true', body);
    expect(chat.status).toBe(200);
    expect(chat.body.answer).toContain('25 days');
    stagesAddUp(chat.body.timings, ['prepareMs', 'retrievalMs', 'rankingMs', 'answerMs']);
    expect((await api.post('/v1/search/chat', body)).body).not.toHaveProperty('timings');
  });

  it('come with the last event of a streamed answer', async () => {
    const res = await fetch(`${svc.url}/v1/search/chat?timings=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId, q: 'How many vacation days?', stream: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const done = text.split('\n\n').find((e) => e.startsWith('event: done'));
    expect(done).toBeDefined();
    const data = JSON.parse(
      done!
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    );
    expect(data.answer).toContain('25 days');
    stagesAddUp(data.timings, ['prepareMs', 'retrievalMs', 'rankingMs', 'answerMs']);
  });
});
