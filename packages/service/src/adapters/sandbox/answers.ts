/** How the worker reads what a parser process answered (or how it ended) into documents' outcomes. */
import type { DetectedLanguage } from '../../domain/ports.js';
import { isDocumentFailureCode } from '../../errors.js';
import { type ParseGroupResponse, type ParseResponse, SANDBOX_FAILURES } from './protocol.js';
import type { Outcome } from './supervise.js';

/** A group's answer, or undefined when it is not one answer per document. */
export function readGroupAnswer(stdout: Buffer, count: number): (ParseResponse | null)[] | undefined {
  try {
    const { results } = JSON.parse(stdout.toString('utf8')) as ParseGroupResponse;
    if (!Array.isArray(results) || results.length !== count) return undefined;
    const valid = results.every(
      (r) =>
        r === null ||
        (typeof r === 'object' &&
          (r.ok ? typeof r.document?.text === 'string' : isDocumentFailureCode(r.code))),
    );
    if (!valid) return undefined;
    for (const r of results) if (r?.ok) r.document.language = toldLanguage(r.document.language);
    return results;
  } catch {
    return undefined;
  }
}

/**
 * A language the process told, as the worker takes it: a language code and a verdict, or nothing
 * (undefined: the worker tells the language itself). The process parses hostile files and is not
 * trusted to send only what was asked.
 */
function toldLanguage(told: unknown): DetectedLanguage | null | undefined {
  if (told === null) return null;
  if (typeof told !== 'object' || told === undefined) return undefined;
  const { language, reliable } = told as Record<string, unknown>;
  return typeof language === 'string' && /^[a-z]{2,3}$/.test(language) && typeof reliable === 'boolean'
    ? { language, reliable }
    : undefined;
}

/** The parser's answer to one document, or the failure its process met. */
export function interpret(outcome: Outcome): ParseResponse {
  if (outcome.kind === 'failed') return { ok: false, code: outcome.code, message: outcome.message };
  try {
    const response = JSON.parse(outcome.stdout.toString('utf8')) as ParseResponse;
    if (
      typeof response === 'object' &&
      response !== null &&
      (response.ok || isDocumentFailureCode(response.code))
    )
      return response;
  } catch {
    // Reported below like any other broken answer.
  }
  return {
    ok: false,
    code: SANDBOX_FAILURES.crash,
    message: 'The parser ended without a readable result.',
  };
}
