/**
 * The walk of a chat question through the service's code: how many of its modules (files) and
 * functions one extractive answer passes through, and how many calls it makes, from the answer
 * operation (`answerQuestion`, where every face hands a question over) to the answer. Counted with
 * V8's precise coverage in this process, after a first question has loaded and warmed everything,
 * so only the second question's calls count. A workspace of a few English documents in the memory
 * index, with the real language detector and WordNet, as the answerer meets them.
 *
 * Run from a checkout: `npx tsx bench/walk.ts` (not bundled: coverage counts each source file on its
 * own); prints one line of JSON. Issue 42 compared checkouts with it.
 */
import { Session } from 'node:inspector/promises';
import { EldDetector } from '../packages/service/src/adapters/language/eld.js';
import { BuiltLexicons } from '../packages/service/src/adapters/lexicon/word-list.js';
import { answerQuestion } from '../packages/service/src/answers/answer.js';
import { keyPrincipal } from '../packages/service/test/support/fakes.js';
import { memoryWorkspace } from '../packages/service/test/support/memory-workspace.js';
import { type Coverage, walkOf } from './lib/coverage.js';

const DOCUMENTS: Record<string, string> = {
  leave:
    '# Leave\n\nEmployees get 25 days of paid vacation per year. Unused days may be carried over until March 31 of the next year.\n\n## Sick leave\n\nA doctor’s note is needed from the third day of absence.',
  travel:
    '# Travel\n\nEconomy class is booked for flights under six hours. Business class is booked for longer flights. Receipts are submitted within 30 days.',
  laptops:
    '# Equipment\n\nEvery employee gets a laptop on the first day. Lost laptops are reported to the IT desk at once.',
};

const deps = {
  ...(await memoryWorkspace(DOCUMENTS)),
  languages: new EldDetector(),
  lexicons: await new BuiltLexicons(() => {}).preload(),
};
const principal = keyPrincipal('acc', ['search'], 'key');
const ask = (q: string) => answerQuestion(deps, principal, { workspaceId: 'ws', q, topK: 8 });

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await ask('How many vacation days do employees get?');
// Taking the coverage resets the counts: what follows is the second question's alone.
await session.post('Profiler.takePreciseCoverage');
const answer = await ask('Until when can unused vacation days be carried over?');
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');

/** Where the question is read: each was made at several places before issue 42's Question value. */
const ANALYSIS = [
  'questionLanguage',
  'questionTerms',
  'indexTerms',
  'queryTerms',
  'codedQuery',
  'expandQuery',
  'compoundExpansions',
  'expectedAnswer',
];
const { files, functions, calls, callsOf: analysis, fileList } = walkOf(result as Coverage, ANALYSIS);
process.stdout.write(
  `${JSON.stringify({ answer: answer.answer, files, functions, calls, analysis, fileList })}\n`,
);
