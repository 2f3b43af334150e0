// Over 400 lines: one pair of workspaces, uploaded and processed once, compared on every face and credential.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser } from '../../src/access/people.js';
import { createApiKey } from '../../src/domain/keys.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Nothing a caller may not see shapes what it gets (issue 39, decision 0017). Workspace A holds three
 * documents; workspace B holds the same three and two more that only the group HR may read, full of
 * the words the questions use and of the names they ask about. A reader outside HR must get the same
 * passages, answers, declines and counts from both, on every face: REST search and chat, the
 * OpenAI-compatible endpoint (plain and streamed), MCP, listings, availability and runs; through a
 * session, a key bound to them, and a key acting on their behalf. Only scores may move (LanceDB's
 * BM25 statistics are per table): the size of that side channel is printed and written down in
 * docs/security.md.
 */

/**
 * A manual long enough that the answerer's absent-noun rule applies (500 passages and more): a
 * question naming a thing no passage of the workspace holds is declined, so hidden documents that
 * hold it would turn a decline into an answer if they were counted.
 */
const MANUAL = Array.from(
  { length: 520 },
  (_, n) =>
    `## Section ${n + 1}\n\nThe printer on floor ${n + 1} takes paper of size A4 and toner of type ${n + 1}. Ask the office team to order supplies when the tray runs low, keep the printer room tidy for everyone, and switch the machine off before you leave in the evening.\n`,
).join('\n');

const VISIBLE = [
  { name: 'manual.md', content: `# Office manual\n\n${MANUAL}` },
  {
    name: 'travel.md',
    content:
      '# Travel policy\n\nEmployees book economy class for flights under six hours. Business class is allowed for longer flights.\n\nExpense reports are due within 30 days of the trip.\n',
  },
  {
    name: 'vacation.md',
    content:
      '# Vacation\n\nEvery employee receives 25 days of paid vacation per year. Unused days expire in March.\n',
  },
  {
    name: 'security.md',
    content:
      '# Security\n\nBadges must be worn at all times inside the building. Visitors sign in at the front desk.\n',
  },
];
const HIDDEN = [
  {
    name: 'salaries.md',
    content:
      '# Salaries\n\nThe CEO salary is 900,000 euros a year. Executives receive 40 days of paid vacation per year, and paid vacation days never expire for them. Executives fly business class on every flight, long or short. The cockpit crew of the company jet receives 50 days of paid vacation.\n',
  },
  {
    name: 'board.md',
    content:
      '# Board minutes\n\nThe board discussed the salary of the CEO, paid vacation days per year, business class flights, expense reports and badges for visitors. Vacation vacation vacation days days paid paid.\n',
  },
];
const QUESTIONS = [
  'How many days of paid vacation per year?',
  'Which class is booked for longer flights?',
  'What is the salary of the CEO?',
  'When are expense reports due?',
  // Names what only the hidden documents hold: the answerer's absent-word rule counts the workspace.
  'How many days of paid vacation do executives get?',
  'Which class do executives fly?',
  'How many days of paid vacation does the cockpit crew get?',
];
const SEARCHES = ['paid vacation days per year', 'business class flights', 'badges visitors', 'salary CEO'];

let svc: TestService;
let admin: ReturnType<typeof client>;
let workspaceA: string;
let workspaceB: string;
/** The reader's credentials: a session cookie, a key bound to them, an account key acting for them. */
const as: Record<'session' | 'boundKey' | 'actAs', (path: string, init?: RequestInit) => Promise<Response>> =
  {
    session: async () => {
      throw new Error('not signed in');
    },
    boundKey: async () => {
      throw new Error('no key');
    },
    actAs: async () => {
      throw new Error('no key');
    },
  };
let boundKey: string;
/** A key of an editor outside HR: runs need the ingest scope readers do not have. */
let editorKey: string;
const open: Client[] = [];

async function uploadInto(
  workspaceId: string | undefined,
  files: { name: string; content: string }[],
  access?: unknown,
) {
  const fields: Record<string, string> = {};
  if (workspaceId) fields.workspaceId = workspaceId;
  if (access) fields.access = JSON.stringify(access);
  const up = await admin.upload(
    files.map((f) => ({ name: f.name, content: f.content, type: 'text/markdown' })),
    fields,
  );
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  expect((await admin.waitForRun(up.body.run.id)).status).toBe('completed');
  return up.body.workspace.id as string;
}

beforeAll(async () => {
  svc = await startTestService();
  const account = await svc.deps.accounts.ensureAccount('default');
  admin = client(svc.url, await svc.key(['ingest', 'search', 'artifacts', 'admin']));
  const hr = await svc.deps.groups.insertGroup({ id: 'grp_hr', accountId: account.id, name: 'HR' });
  const staff = await svc.deps.groups.insertGroup({ id: 'grp_staff', accountId: account.id, name: 'Staff' });
  expect(hr && staff).toBeTruthy();
  const reader = await insertUser(svc.deps, account.id, {
    email: 'rita@example.com',
    password: 'a long reader password',
    role: 'reader',
    groups: ['Staff'],
  });
  await insertUser(svc.deps, account.id, { email: 'hana@example.com', role: 'reader', groups: ['HR'] });
  const editor = await insertUser(svc.deps, account.id, {
    email: 'eddie@example.com',
    role: 'editor',
    groups: ['Staff'],
  });
  editorKey = (
    await createApiKey(svc.deps.accounts, {
      accountId: account.id,
      scopes: ['ingest', 'search', 'artifacts'],
      name: 'eddie',
      userId: editor.id,
    })
  ).secret;

  workspaceA = await uploadInto(undefined, VISIBLE);
  workspaceB = await uploadInto(undefined, VISIBLE);
  await uploadInto(workspaceB, HIDDEN, { groups: ['HR'] });

  // A session of the reader.
  const signIn = await fetch(`${svc.url}/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'rita@example.com', password: 'a long reader password' }),
  });
  expect(signIn.status).toBe(200);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await signIn.json()) as { csrfToken: string };
  as.session = (path, init = {}) =>
    fetch(svc.url + path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), cookie, 'x-csrf-token': csrfToken },
    });
  boundKey = (
    await createApiKey(svc.deps.accounts, {
      accountId: account.id,
      scopes: ['search', 'artifacts'],
      name: 'rita',
      userId: reader.id,
    })
  ).secret;
  as.boundKey = (path, init = {}) =>
    fetch(svc.url + path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${boundKey}` },
    });
  const actKey = await svc.key(['search', 'artifacts', 'act-as']);
  as.actAs = (path, init = {}) =>
    fetch(svc.url + path, {
      ...init,
      headers: {
        ...(init.headers as Record<string, string>),
        authorization: `Bearer ${actKey}`,
        'docslurp-on-behalf-of': 'rita@example.com',
      },
    });
}, 180_000);
afterAll(async () => {
  for (const c of open) await c.close().catch(() => {});
  await svc?.close();
});

interface Hit {
  text: string;
  score: number;
  citation: {
    filename: string;
    page: number | null;
    charStart: number;
    charEnd: number;
    headingPath: string[];
  };
}
/** A hit as both workspaces must give it: its text and where it cites, not which ids or score. */
const sameness = (h: Hit) =>
  `${h.citation.filename}@${h.citation.charStart}-${h.citation.charEnd}|${h.citation.headingPath.join('/')}|${h.text}`;
const hitsOf = (hits: Hit[]) => hits.map(sameness).sort();

interface Answer {
  answer: string;
  citations: { filename: string; charStart: number; charEnd: number }[];
}
const answerOf = (a: Answer) => ({
  answer: a.answer,
  citations: a.citations.map((c) => `${c.filename}@${c.charStart}-${c.charEnd}`),
});

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary JSON answers and assert on their shape.
async function read(res: Response): Promise<any> {
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

describe('what a reader cannot see shapes nothing it gets', () => {
  it('has the hidden documents, for those who may see them', async () => {
    const all = await admin.get(`/v1/workspaces/${workspaceB}/documents`);
    expect(all.body.documents).toHaveLength(VISIBLE.length + HIDDEN.length);
    const hidden = all.body.documents.filter((d: { filename: string }) => d.filename === 'salaries.md');
    expect(hidden[0].access).toEqual({ users: [], groups: ['grp_hr'] });
    const found = await admin.post('/v1/search', { workspaceId: workspaceB, q: 'salary CEO', topK: 5 });
    expect(found.body.results.map((h: Hit) => h.citation.filename)).toContain('salaries.md');
  });

  for (const via of ['session', 'boundKey', 'actAs'] as const) {
    it(`gives the same passages through search (${via})`, async () => {
      const moved: string[] = [];
      for (const q of SEARCHES) {
        const [a, b] = await Promise.all(
          [workspaceA, workspaceB].map(
            async (ws) =>
              (await read(await as[via]('/v1/search', json({ workspaceId: ws, q, topK: 5 }))))
                .results as Hit[],
          ),
        );
        expect(hitsOf(b!), q).toEqual(hitsOf(a!));
        expect(b!.map((h) => h.citation.filename)).not.toContain('salaries.md');
        for (const h of a!) {
          const other = b!.find((x) => sameness(x) === sameness(h))!;
          if (other.score !== h.score)
            moved.push(`${q}: ${h.citation.filename} ${h.score.toFixed(3)} → ${other.score.toFixed(3)}`);
        }
      }
      if (via === 'session') console.info(`BM25 side channel, scores that moved:\n  ${moved.join('\n  ')}`);
    });

    it(`gives the same answers and declines through chat (${via})`, async () => {
      for (const q of QUESTIONS) {
        const [a, b] = await Promise.all(
          [workspaceA, workspaceB].map(async (ws) =>
            answerOf(await read(await as[via]('/v1/search/chat', json({ workspaceId: ws, q })))),
          ),
        );
        expect(b, q).toEqual(a);
        expect(b!.citations.join()).not.toContain('salaries.md');
        expect(b!.answer).not.toMatch(/900,000|Executives/);
      }
    });

    it(`gives the same answers through the OpenAI-compatible endpoint, plain and streamed (${via})`, async () => {
      for (const q of QUESTIONS) {
        const plain = await Promise.all(
          [workspaceA, workspaceB].map(async (ws) => {
            const body = await read(
              await as[via](
                `/v1/workspaces/${ws}/openai/chat/completions`,
                json({ model: 'docslurp', messages: [{ role: 'user', content: q }] }),
              ),
            );
            return answerOf({ answer: body.choices[0].message.content, citations: body.citations });
          }),
        );
        expect(plain[1], q).toEqual(plain[0]);
        const streamed = await Promise.all(
          [workspaceA, workspaceB].map(async (ws) => {
            const res = await as[via](
              `/v1/workspaces/${ws}/openai/chat/completions`,
              json({ model: 'docslurp', stream: true, messages: [{ role: 'user', content: q }] }),
            );
            expect(res.status).toBe(200);
            const events = (await res.text())
              .split('\n')
              .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
              .map((l) => JSON.parse(l.slice(6)));
            const text = events.map((e) => e.choices?.[0]?.delta?.content ?? '').join('');
            const citations = events.find((e) => e.citations)?.citations ?? [];
            return answerOf({ answer: text, citations });
          }),
        );
        expect(streamed[1], q).toEqual(streamed[0]);
        expect(streamed[0]!.answer).toBe(plain[0]!.answer);
      }
    });

    it(`gives the same documents, counts, availability and runs (${via})`, async () => {
      const list = async (ws: string) =>
        ((await read(await as[via](`/v1/workspaces/${ws}/documents`))).documents as { filename: string }[])
          .map((d) => d.filename)
          .sort();
      expect(await list(workspaceB)).toEqual(await list(workspaceA));
      const workspaces = (await read(await as[via]('/v1/workspaces'))).workspaces as {
        id: string;
        counts: object;
      }[];
      expect(workspaces.find((w) => w.id === workspaceB)!.counts).toEqual(
        workspaces.find((w) => w.id === workspaceA)!.counts,
      );
      const availability = async (ws: string) => {
        const a = await read(await as[via](`/v1/workspaces/${ws}/availability`));
        return {
          ...a,
          workspaceId: undefined,
          searchable: a.searchable.map((d: { filename: string }) => d.filename).sort(),
        };
      };
      expect(await availability(workspaceB)).toEqual(await availability(workspaceA));
      const hidden = (await admin.get(`/v1/workspaces/${workspaceB}/documents`)).body.documents.find(
        (d: { filename: string }) => d.filename === 'salaries.md',
      );
      for (const path of [
        `/v1/documents/${hidden.id}`,
        `/v1/documents/${hidden.id}/text`,
        `/v1/documents/${hidden.id}/content`,
      ])
        expect((await as[via](path)).status, path).toBe(404);
    });
  }

  it('gives an editor outside HR the same runs of both workspaces, and none of the hidden upload', async () => {
    const editor = client(svc.url, editorKey);
    const runs = async (ws: string) =>
      ((await editor.get(`/v1/workspaces/${ws}/runs`)).body.runs as { counts: object }[]).map(
        (r) => r.counts,
      );
    // The upload of the hidden documents is a run of documents all hidden from the editor: hidden too.
    expect(await runs(workspaceB)).toEqual(await runs(workspaceA));
    expect((await admin.get(`/v1/workspaces/${workspaceB}/runs`)).body.runs).toHaveLength(2);
    const hidden = (await admin.get(`/v1/workspaces/${workspaceB}/documents`)).body.documents.find(
      (d: { filename: string }) => d.filename === 'salaries.md',
    );
    for (const path of [`/v1/runs/${hidden.runId}`, `/v1/runs/${hidden.runId}/progress`])
      expect((await editor.get(path)).status, path).toBe(404);
    expect((await editor.delete(`/v1/documents/${hidden.id}`)).status).toBe(404);
    const overview = (await editor.get('/v1/overview')).body;
    const everything = (await admin.get('/v1/overview')).body;
    expect(everything.documents.total - overview.documents.total).toBe(HIDDEN.length);
  });

  it('gives the same passages, answers and documents through MCP', async () => {
    const connect = async (ws: string) => {
      const c = new Client({ name: 'docslurp-test', version: '1.0.0' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${svc.url}/v1/workspaces/${ws}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${boundKey}` } },
        }),
      );
      open.push(c);
      return c;
    };
    const [a, b] = await Promise.all([connect(workspaceA), connect(workspaceB)]);
    const call = async (c: Client, name: string, args: Record<string, unknown>) => {
      const r = (await c.callTool({ name, arguments: args })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      return r.structuredContent as Record<string, unknown>;
    };
    for (const q of SEARCHES) {
      const [ha, hb] = await Promise.all([a!, b!].map((c) => call(c, 'search', { query: q, topK: 5 })));
      const norm = (r: Record<string, unknown>) =>
        (r.results as { text: string; citation: { filename: string; charStart: number } }[])
          .map((h) => `${h.citation.filename}@${h.citation.charStart}|${h.text}`)
          .sort();
      expect(norm(hb!), q).toEqual(norm(ha!));
    }
    for (const q of QUESTIONS) {
      const [qa, qb] = await Promise.all([a!, b!].map((c) => call(c, 'ask', { question: q })));
      expect((qb as { answer: string }).answer, q).toBe((qa as { answer: string }).answer);
    }
    const docs = async (c: Client) =>
      ((await call(c, 'list_documents', {})).documents as { filename: string }[])
        .map((d) => d.filename)
        .sort();
    expect(await docs(b!)).toEqual(await docs(a!));
  });
});

describe('search filters inside the index query, before ranking', () => {
  it('returns topK passages of the documents the reader may see, however many hidden ones rank higher', async () => {
    const hiddenMany = Array.from({ length: 70 }, (_, i) => ({
      name: `memo-${i}.md`,
      content: `# Memo ${i}\n\nQuarterly forecast forecast forecast: the forecast for region ${i} is confidential.\n`,
    }));
    const seen = Array.from({ length: 10 }, (_, i) => ({
      name: `note-${i}.md`,
      content: `# Note ${i}\n\nThe weather forecast for the picnic number ${i} says sunshine, and the lunch menu has soup.\n`,
    }));
    const ws = await uploadInto(undefined, seen);
    await uploadInto(ws, hiddenMany, { groups: ['HR'] });
    const everyone = await admin.post('/v1/search', { workspaceId: ws, q: 'forecast', topK: 5 });
    // The hidden memos outrank every note for a caller who sees them all.
    expect(everyone.body.results.every((h: Hit) => h.citation.filename.startsWith('memo-'))).toBe(true);
    for (const via of ['session', 'boundKey', 'actAs'] as const) {
      const results = (
        await read(await as[via]('/v1/search', json({ workspaceId: ws, q: 'forecast', topK: 5 })))
      ).results as Hit[];
      expect(
        results.map((h) => h.citation.filename.replace(/\d+/, 'N')),
        via,
      ).toEqual(Array(5).fill('note-N.md'));
    }
  });
});
