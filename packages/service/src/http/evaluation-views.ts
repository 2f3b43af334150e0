import { z } from 'zod';
import { etaSeconds } from '../evaluation/evaluations.js';
import { CHECK_METRICS, LATENCY_METRICS, type MetricName } from '../evaluation/metrics.js';
import { QUESTION_LIMITS, QuestionInput } from '../evaluation/questions.js';
import type {
  EvaluationRecord,
  OutcomeRow,
  QuestionSet as QuestionSetRecord,
  QuestionSetSummary as SummaryRecord,
} from '../evaluation/store.js';
import { MaxChunksPerDocumentShape, REQUEST_DEFAULTS } from '../search/request.js';

/** A question as stored: every field present, defaults filled in. */
export const Question = z
  .object({
    q: z.string(),
    answers: z
      .array(z.string())
      .describe('Strings a right answer contains (compared after NFKC, case and space folding)'),
    patterns: z
      .array(z.string())
      .describe('Regular expressions a right answer matches, ignoring case (linear-time engine)'),
    match: z
      .enum(['folded', 'squad'])
      .describe("How answers are compared: folded, or SQuAD's normalisation of whole words"),
    expected: z
      .array(
        z.union([
          z.object({
            document: z.string().describe('A document id or filename'),
            page: z.number().int().optional(),
          }),
          z.object({ passage: z.string().describe('A text one of the retrieved passages contains') }),
        ]),
      )
      .describe('What a right search finds'),
    unanswerable: z.boolean().describe('The workspace holds no answer: a right answer declines'),
    language: z.string().nullable(),
    tags: z.array(z.string()),
    history: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }))
      .describe('Earlier turns of the conversation it is asked after, oldest first (a follow-up)'),
  })
  .meta({ id: 'Question' });

/** The JSON form of a new set: the questions are checked one by one by the operation, not here. */
export const QuestionSetCreate = z
  .object({
    name: z.string().trim().min(1).max(200),
    questions: z
      .array(z.unknown())
      .max(QUESTION_LIMITS.questions * 2)
      .describe(
        'Questions: {q, answers?, patterns?, match?, expected?, unanswerable?, language?, tags?, history?}; each bad one is named in invalid_questions',
      ),
  })
  .strict();

/** The JSON body's schema for the OpenAPI document: the question's input form. */
export const QuestionSetCreateDocumented = z
  .object({
    name: z.string().min(1).max(200),
    questions: z.array(QuestionInput).min(1).max(QUESTION_LIMITS.questions),
  })
  .describe('application/json');

export const QuestionSetSummary = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    questionCount: z.number().int(),
    createdBy: z.string().describe("Who made it: the user's e-mail or the key's prefix"),
    createdAt: z.string(),
  })
  .meta({ id: 'QuestionSetSummary' });

export const QuestionSet = QuestionSetSummary.extend({ questions: z.array(Question) }).meta({
  id: 'QuestionSet',
});

export const summaryView = (s: SummaryRecord): z.infer<typeof QuestionSetSummary> => ({
  id: s.id,
  workspaceId: s.workspaceId,
  name: s.name,
  questionCount: s.questionCount,
  createdBy: s.createdBy,
  createdAt: s.createdAt.toISOString(),
});

export const questionSetView = (s: QuestionSetRecord): z.infer<typeof QuestionSet> => ({
  ...summaryView(s),
  questions: s.questions,
});

const Metric = z
  .object({
    value: z.number(),
    low: z.number().describe('2.5th percentile of the bootstrap'),
    high: z.number().describe('97.5th percentile of the bootstrap'),
    n: z.number().int().describe('Questions the metric is over'),
  })
  .nullable()
  .meta({ id: 'EvaluationMetric' });

const metricsShape = Object.fromEntries(
  [...Object.keys(CHECK_METRICS), ...LATENCY_METRICS].map((name) => [name, Metric]),
) as Record<MetricName, typeof Metric>;

export const EvaluationMetrics = z
  .object(metricsShape)
  .describe('Each metric over the questions it applies to (null when none does), with its 95 % interval')
  .meta({ id: 'EvaluationMetrics' });

const SearchMode = z.enum(['lexical', 'vector', 'hybrid']);
const AnswerModeSchema = z.enum(['extractive', 'model']);

export const ConfigurationInputSchema = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    search: z
      .object({
        topK: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(`Passages retrieved and scored (default ${REQUEST_DEFAULTS.searchTopK})`),
        mode: SearchMode.optional().describe(
          'Default: hybrid when the server has an embedding model, else lexical',
        ),
        hybridWeight: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe("The vector ranking's share in hybrid fusion"),
        rerank: z.boolean().optional().describe('Default: on when the server has a reranker'),
        maxChunksPerDocument: MaxChunksPerDocumentShape.optional().describe(
          'At most this many passages of one document (default: no limit)',
        ),
      })
      .strict()
      .optional(),
    answers: z
      .object({ mode: AnswerModeSchema.optional().describe('Default: model when the server has one') })
      .strict()
      .nullable()
      .optional()
      .describe('null: passages only, no answers asked for'),
  })
  .strict();

export const EvaluationCreate = z
  .object({
    questionSetId: z.string().min(1).max(100),
    name: z.string().trim().min(1).max(200).optional().describe("Default: the question set's name"),
    configurations: z
      .array(ConfigurationInputSchema)
      .max(5)
      .optional()
      .describe("Ways to ask the questions, compared side by side (default: one, the server's defaults)"),
  })
  .strict();

const Configuration = z
  .object({
    name: z.string(),
    search: z.object({
      topK: z.number().int(),
      mode: SearchMode,
      hybridWeight: z.number(),
      rerank: z.boolean(),
      maxChunksPerDocument: z.number().int().nullable().describe('Null: no limit'),
    }),
    answers: z.object({ mode: AnswerModeSchema }).nullable(),
  })
  .meta({ id: 'EvaluationConfiguration' });

const ConfigurationResultsSchema = z
  .object({
    configuration: z.string(),
    metrics: EvaluationMetrics,
    languages: z.record(z.string(), EvaluationMetrics).describe('The metrics per question language'),
    tags: z.record(z.string(), EvaluationMetrics).describe('The metrics per tag'),
  })
  .meta({ id: 'EvaluationResults' });

export const Evaluation = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    questionSetId: z.string().nullable().describe('Null once the set was deleted'),
    questionSetName: z.string(),
    name: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
    configurations: z.array(Configuration),
    progress: z.object({
      done: z.number().int().describe('Questions asked, over every configuration'),
      total: z.number().int(),
      etaSeconds: z.number().int().nullable().describe('At the pace so far; null unless running'),
    }),
    createdBy: z.string(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    results: z.array(ConfigurationResultsSchema).nullable().describe('Once completed: per configuration'),
  })
  .meta({ id: 'Evaluation' });

const Checks = z
  .object({
    firstHitRank: z.number().nullable(),
    hitAt1: z.number().nullable(),
    hitAt5: z.number().nullable(),
    hitAt10: z.number().nullable(),
    reciprocalRank: z.number().nullable(),
    answerRecallAt5: z.number().nullable(),
    ndcgAt10: z.number().nullable(),
    recallAt100: z.number().nullable(),
    chatContains: z.number().nullable(),
    citedContains: z.number().nullable(),
    citedExpected: z.number().nullable(),
    markersResolve: z.number().nullable(),
    unanswerableDeclined: z.number().nullable(),
    falseDecline: z.number().nullable(),
  })
  .describe(
    'Each check: 1 passed, 0 failed, null not applicable; rank checks may be fractions (expectations over the order of passages with equal scores)',
  );

export const EvaluationOutcome = z
  .object({
    configuration: z.string(),
    ordinal: z.number().int().describe("The question's place in the set, from 0"),
    q: z.string(),
    language: z.string().nullable(),
    tags: z.array(z.string()),
    retrieved: z.array(
      z.object({
        rank: z.number().int(),
        documentId: z.string(),
        filename: z.string(),
        page: z.number().int().nullable(),
        score: z.number(),
        chunkId: z.string(),
      }),
    ),
    answer: z
      .object({
        text: z.string(),
        kind: z.string(),
        declined: z.boolean(),
        citations: z.array(
          z.object({
            n: z.number().int(),
            documentId: z.string(),
            filename: z.string(),
            page: z.number().int().nullable(),
            chunkId: z.string(),
          }),
        ),
      })
      .nullable(),
    searchMs: z.number(),
    chatMs: z.number().nullable(),
    checks: Checks,
    passed: z.array(z.string()).describe('The metrics this question counts as right for'),
    failed: z.array(z.string()).describe('The metrics this question counts as wrong for'),
  })
  .meta({ id: 'EvaluationOutcome' });

const MetricComparison = z
  .object({ a: Metric, b: Metric, difference: Metric })
  .describe('Each side, and the difference b - a with its 95 % interval');

export const EvaluationComparison = z
  .object({
    a: z.string().describe('The baseline'),
    b: z.string(),
    configurations: z.array(
      z.object({
        a: z.string(),
        b: z.string(),
        paired: z
          .boolean()
          .describe('Both asked the same questions: differences are over the same questions'),
        metrics: z.object(
          Object.fromEntries(Object.keys(metricsShape).map((k) => [k, MetricComparison])) as Record<
            MetricName,
            typeof MetricComparison
          >,
        ),
        changed: z
          .array(
            z.object({
              ordinal: z.number().int(),
              q: z.string(),
              worse: z.array(z.string()),
              better: z.array(z.string()),
            }),
          )
          .describe('Questions right in a and wrong in b (worse), or the other way (better)'),
      }),
    ),
  })
  .meta({ id: 'EvaluationComparison' });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const evaluationView = (e: EvaluationRecord, now = Date.now()): z.infer<typeof Evaluation> => ({
  id: e.id,
  workspaceId: e.workspaceId,
  questionSetId: e.questionSetId,
  questionSetName: e.questionSetName,
  name: e.name,
  status: e.status,
  configurations: e.configurations.map((c) => ({
    ...c,
    search: { ...c.search, maxChunksPerDocument: c.search.maxChunksPerDocument ?? null },
  })),
  progress: { done: e.done, total: e.total, etaSeconds: etaSeconds(e, now) },
  createdBy: e.createdBy,
  createdAt: e.createdAt.toISOString(),
  startedAt: iso(e.startedAt),
  finishedAt: iso(e.finishedAt),
  error: e.error,
  results: e.results,
});

export const outcomeView = (e: EvaluationRecord, row: OutcomeRow): z.infer<typeof EvaluationOutcome> => {
  const passed: string[] = [];
  const failed: string[] = [];
  for (const [name, check] of Object.entries(CHECK_METRICS)) {
    const v = row.outcome.checks[check];
    if (v === null) continue;
    // A false decline counts against the question when it happened.
    const right = name === 'falseDeclines' ? v < 0.5 : v >= 0.5;
    (right ? passed : failed).push(name);
  }
  return {
    configuration: e.configurations[row.configuration]?.name ?? String(row.configuration),
    ordinal: row.ordinal,
    ...row.outcome,
    passed,
    failed,
  };
};

/** What an `evaluation.completed` or `evaluation.failed` webhook carries. */
export const WebhookEvaluationData = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    questionSetId: z.string().nullable(),
    name: z.string(),
    status: z.enum(['completed', 'failed']),
    finishedAt: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    results: z.array(
      z.object({
        configuration: z.string(),
        metrics: z
          .record(z.string(), z.number().nullable())
          .describe("Each metric's value (the API has its interval)"),
      }),
    ),
  })
  .meta({ id: 'WebhookEvaluationData' });

export const WebhookEvaluationEvent = z.object({
  id: z.string(),
  type: z.enum(['evaluation.completed', 'evaluation.failed']),
  timestamp: z.string(),
  data: WebhookEvaluationData,
});
