/** How the worker reads what a parser process answered (or how it ended) into documents' outcomes. */
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
    return valid ? results : undefined;
  } catch {
    return undefined;
  }
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
