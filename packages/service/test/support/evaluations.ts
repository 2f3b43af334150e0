import { expect } from 'vitest';
import type { client, Reply } from './http.js';

/** The two small documents the evaluation tests ask about (issue 40). */
export const HANDBOOK = [
  '# Leave',
  '',
  'Every employee receives 25 days of paid vacation per year. Unused days expire at the end of March.',
  '',
  '# Travel',
  '',
  'Business class is booked for flights longer than six hours. Economy class is booked for all other flights.',
].join('\n');
export const SECURITY =
  '# Security\n\nVisitor badges are collected at the reception desk on the ground floor.\n';

/** Polls an evaluation until it is completed, failed or cancelled; returns it. */
export async function waitForEvaluation(
  api: ReturnType<typeof client>,
  id: string,
  timeoutMs = 60_000,
): Promise<Reply['body']> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api.get(`/v1/evaluations/${id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    if (['completed', 'failed', 'cancelled'].includes(r.body.status)) return r.body;
    if (Date.now() > deadline) throw new Error(`evaluation ${id} still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
