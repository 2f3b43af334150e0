import { batchPlace, type Claimable, formBatch } from '../../domain/batches.js';
import type { BatchClaim, ClaimOptions } from '../../domain/stores.js';
import { type RunStatus, TERMINAL_DOCUMENT_STATUSES } from '../../domain/types.js';
import { inTransaction, type Pool, type PoolClient } from './db.js';
import { type DocumentRow, toDocument } from './rows.js';
import { CANCELLED_BEFORE_PROCESSING } from './runs.js';

/**
 * Claims documents for one batch. Batches are taken in turns (issue 44): the workspace whose turn
 * it is (nextTurnIn) is the one whose account was served least recently, and within that account
 * the workspace served least recently, among the workspaces of the documents asked for and those
 * with documents waiting in the queue. Its documents among those asked for are taken in the order
 * given; if none was asked for, its oldest waiting documents are taken from the queue (their jobs,
 * still queued, find them taken later), and every document asked for is deferred. So an account
 * whose jobs fill the queue gets one batch in turn with the others, not every batch until its
 * backlog is done. Within a batch: documents of that one workspace and kind while their sizes add
 * up to at most `maxBytes` (the first one always). A document of unknown size (a URL not fetched
 * yet) weighs a whole batch, so it is claimed alone. One whose last attempt started and did not
 * finish shares a batch only with a few such others, and goes alone on its last attempt
 * (batchPlace): a document that crashed its worker cannot take a batch of others down with it
 * again. The others are `deferred`, left for another batch. A claimed document is `processing` at
 * stage `queued` until the worker starts it; its attempt counts from then.
 */
export async function claimDocuments(
  pool: Pool,
  documentIds: string[],
  workerId: string,
  options: ClaimOptions,
): Promise<BatchClaim> {
  return inTransaction(pool, async (c) => {
    // Before any document is locked: see nextTurnIn.
    const turn = await nextTurnIn(c, documentIds, options.maxAttempts);
    // In id order, as every batch locks them, so two claims never wait on each other in a cycle.
    const r = await c.query<ClaimRow>(
      `SELECT d.*, r.status AS run_status, (d.lease_expires_at > now()) AS lease_live,
         w.language AS workspace_language
       FROM documents d JOIN runs r ON r.id = d.run_id JOIN workspaces w ON w.id = d.workspace_id
       WHERE d.id = ANY($1::text[]) ORDER BY d.id
       FOR UPDATE OF d`,
      [documentIds],
    );
    const rows = new Map(r.rows.map((row) => [row.id, row]));
    const out: BatchClaim = { claimed: [], deferred: [], exhausted: [], skipped: [] };
    const claimable: (Claimable & { row: ClaimRow })[] = [];
    const paused: string[] = [];
    const cancelled: string[] = [];
    for (const id of new Set(documentIds)) {
      const row = rows.get(id);
      if (!row || row.status === 'deleted') {
        out.skipped.push({ documentId: id, reason: 'gone' });
        continue;
      }
      const doc = toDocument(row);
      if (TERMINAL_DOCUMENT_STATUSES.has(doc.status)) {
        out.skipped.push({ documentId: id, reason: 'terminal' });
      } else if (row.lease_live === true) {
        // This worker's own lease too: a document taken from the queue in another workspace's
        // turn still has its job, which may come while another of this worker's batches holds it.
        out.skipped.push({ documentId: id, reason: 'leased_elsewhere' });
      } else if (row.run_status === 'paused') {
        paused.push(id);
        out.skipped.push({ documentId: id, reason: 'run_paused' });
      } else if (row.run_status === 'cancelled') {
        cancelled.push(id);
        out.skipped.push({ documentId: id, reason: 'run_cancelled' });
      } else if (doc.attempts >= options.maxAttempts) {
        out.exhausted.push(doc);
      } else {
        claimable.push({ id, workspaceId: doc.workspaceId, place: batchPlace(doc, options), row });
      }
    }
    let take: (Claimable & { row: ClaimRow })[] = [];
    const turnInHand = turn !== undefined && claimable.some((x) => x.workspaceId === turn);
    if (turn !== undefined && !turnInHand) {
      const waiting = await waitingIn(
        c,
        turn,
        options.maxDocuments ?? documentIds.length,
        options.maxAttempts,
      );
      take = formBatch(
        waiting.map((row) => ({
          id: row.id,
          workspaceId: row.workspace_id,
          place: batchPlace(toDocument(row), options),
          row,
        })),
        turn,
        options.maxBytes,
      ).take;
      if (take.length > 0) out.deferred = claimable.map((x) => x.id);
    }
    if (take.length === 0 && claimable.length > 0) {
      // The turn's workspace, or when its waiting documents were all taken meanwhile by another
      // claim, the first one in hand, as the queue orders them.
      const batch = formBatch(claimable, turnInHand ? turn : claimable[0]!.workspaceId, options.maxBytes);
      take = batch.take;
      out.deferred = batch.left.map((x) => x.id);
    }
    if (take.length > 0) {
      out.workspaceLanguage = take[0]!.row.workspace_language;
      await c.query('UPDATE workspace_turns SET served_at = clock_timestamp() WHERE workspace_id = $1', [
        take[0]!.workspaceId,
      ]);
    }
    if (paused.length > 0) {
      await c.query(
        `UPDATE documents SET status = 'queued', stage = 'queued', lease_owner = NULL, lease_expires_at = NULL,
           updated_at = now() WHERE id = ANY($1::text[])`,
        [paused],
      );
    }
    if (cancelled.length > 0) {
      await c.query(
        `UPDATE documents SET status = 'cancelled', stage = 'done', error_code = 'cancelled',
           error_message = $2, fetch_headers = NULL, lease_owner = NULL, lease_expires_at = NULL,
           updated_at = now(), finished_at = now()
         WHERE id = ANY($1::text[])`,
        [cancelled, CANCELLED_BEFORE_PROCESSING],
      );
    }
    if (take.length > 0) {
      const u = await c.query<DocumentRow>(
        `UPDATE documents SET status = 'processing', stage = 'queued', lease_owner = $2,
           lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
         WHERE id = ANY($1::text[]) RETURNING *`,
        [take.map((x) => x.id), workerId, options.leaseSeconds],
      );
      const byId = new Map(u.rows.map((row) => [row.id, toDocument(row)]));
      out.claimed = take.map((x) => byId.get(x.id)!);
    }
    return out;
  });
}

type ClaimRow = DocumentRow & {
  run_status: RunStatus;
  lease_live: boolean | null;
  workspace_language: string;
};

/**
 * The workspace whose turn it is to be served, among the workspaces of the documents asked for
 * (`documentIds`: the jobs a consumer took) and those with documents waiting in a running run: the
 * one whose account was served least recently (by any of its workspaces; an account never served
 * first), then within the account the one served least recently, a workspace never served counting
 * from when its oldest running run began (it joins the round at the back), then the workspace of
 * the first job in hand (the queue's order, among equals). Undefined when none waits. Were a
 * workspace never served always first, an account that uploads into a new workspace every few
 * seconds would keep its older workspaces waiting for as long as it went on.
 *
 * A workspace's turn is a row of `workspace_turns`, updated when a batch of it is claimed. Rows of
 * these workspaces not there yet are inserted here, before the claim locks any document: the row's
 * reference to its workspace takes a lock on the workspace that a deletion of it, which locks the
 * workspace first and its documents after, would otherwise wait on in the other order.
 */
async function nextTurnIn(
  c: PoolClient,
  documentIds: string[],
  maxAttempts: number,
): Promise<string | undefined> {
  const r = await c.query<{ workspace_id: string }>(
    `WITH in_hand AS (
       SELECT d.account_id, d.workspace_id, min(j.n) AS position
       FROM unnest($1::text[]) WITH ORDINALITY AS j(id, n)
         JOIN documents d ON d.id = j.id JOIN runs r ON r.id = d.run_id
       WHERE r.status = 'processing' AND d.attempts < $2
         AND (d.status = 'queued' OR (d.status = 'processing' AND coalesce(d.lease_expires_at <= now(), true)))
       GROUP BY d.account_id, d.workspace_id
     ), waiting AS (
       SELECT w.account_id, w.workspace_id
       FROM (SELECT DISTINCT account_id, workspace_id FROM runs WHERE status = 'processing') w
       WHERE EXISTS (
         SELECT 1 FROM runs r JOIN documents d ON d.run_id = r.id
         WHERE r.workspace_id = w.workspace_id AND r.status = 'processing' AND d.status = 'queued'
           AND d.attempts < $2)
     ), candidates AS (
       SELECT account_id, workspace_id, min(position) AS position FROM (
         SELECT account_id, workspace_id, position FROM in_hand
         UNION ALL SELECT account_id, workspace_id, NULL FROM waiting) x
       GROUP BY account_id, workspace_id
     ), chosen AS (
       SELECT c.account_id, c.workspace_id FROM candidates c
       LEFT JOIN workspace_turns t ON t.workspace_id = c.workspace_id
       ORDER BY coalesce((SELECT max(a.served_at) FROM workspace_turns a WHERE a.account_id = c.account_id), '-infinity'),
         CASE WHEN coalesce(t.served_at, '-infinity') = '-infinity'
           THEN (SELECT min(r.created_at) FROM runs r WHERE r.workspace_id = c.workspace_id AND r.status = 'processing')
           ELSE t.served_at END,
         c.position NULLS LAST, c.workspace_id
       LIMIT 1
     ), noted AS (
       INSERT INTO workspace_turns (workspace_id, account_id, served_at)
       SELECT workspace_id, account_id, '-infinity' FROM candidates
       WHERE position IS NOT NULL OR workspace_id IN (SELECT workspace_id FROM chosen)
       ON CONFLICT (workspace_id) DO NOTHING
     )
     SELECT workspace_id FROM chosen`,
    [documentIds, maxAttempts],
  );
  return r.rows[0]?.workspace_id;
}

/**
 * A workspace's oldest waiting documents (its running runs in order, each one's documents in
 * order), locked for the claim; those another claim is taking are skipped, never waited for.
 */
async function waitingIn(
  c: PoolClient,
  workspaceId: string,
  limit: number,
  maxAttempts: number,
): Promise<ClaimRow[]> {
  const r = await c.query<ClaimRow>(
    `SELECT d.*, r.status AS run_status, (d.lease_expires_at > now()) AS lease_live,
       w.language AS workspace_language
     FROM (SELECT id, status FROM runs WHERE workspace_id = $1 AND status = 'processing' ORDER BY id) r
     CROSS JOIN LATERAL (
       SELECT * FROM documents d
       WHERE d.run_id = r.id AND d.status = 'queued' AND d.attempts < $3
       ORDER BY d.id LIMIT $2
       FOR UPDATE SKIP LOCKED
     ) d
     JOIN workspaces w ON w.id = d.workspace_id
     LIMIT $2`,
    [workspaceId, limit, maxAttempts],
  );
  return r.rows;
}
