import { z } from 'zod';
import { QUESTION_LIMITS, QuestionInput } from '../evaluation/questions.js';
import type {
  QuestionSet as QuestionSetRecord,
  QuestionSetSummary as SummaryRecord,
} from '../evaluation/store.js';

/** A question as stored: every field present, defaults filled in. */
export const Question = z
  .object({
    q: z.string(),
    answers: z
      .array(z.string())
      .describe('Strings a right answer contains (compared after NFKC, case and space folding)'),
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
        'Questions: {q, answers?, expected?, unanswerable?, language?, tags?}; each bad one is named in invalid_questions',
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
