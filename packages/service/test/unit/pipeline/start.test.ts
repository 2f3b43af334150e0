// Starting (processing/pipeline/start.ts): a document's start alone or with its group.
import { describe, expect, it } from 'vitest';
import { artifactKeys } from '../../../src/domain/artifacts.js';
import { processDocuments } from '../../../src/processing/pipeline/index.js';
import {
  deps,
  index,
  objects,
  recordingParser,
  recordStarts,
  TEXT,
  upload,
  usePipelineBench,
  WORKER,
  work,
} from '../../support/pipeline.js';

usePipelineBench();

describe('starting documents, alone or a group at a time', () => {
  it('leaves a document of a paused run queued, and cancels one of a cancelled run', async () => {
    await upload('doc_a', TEXT, { runId: 'run_paused' });
    await upload('doc_b', TEXT, { runId: 'run_cancelled' });
    work.runs.get('run_paused')!.status = 'paused';
    work.runs.get('run_cancelled')!.status = 'cancelled';
    await processDocuments(deps(), ['doc_a', 'doc_b'], WORKER);

    expect(work.document('doc_a')).toMatchObject({ status: 'queued', attempts: 0 });
    expect(work.document('doc_b')).toMatchObject({ status: 'cancelled', errorCode: 'cancelled' });
    expect(index.rows.size).toBe(0);
  });

  it('starts the small uploads of a batch in one write and parses them in one request, each with its own outcome', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    await upload('doc_big', `# Big\n\n${'A long policy on parking. '.repeat(8000)}\n`);
    const { parser, groups, alone } = recordingParser();
    const starts = recordStarts();
    await processDocuments(deps({ parser }), [...ids, 'doc_big'], WORKER);

    // One write starts the group, one request parses it.
    expect(starts).toEqual([ids, ['doc_big']]);
    expect(groups).toEqual([['doc_a.md', 'doc_b.md', 'doc_c.md']]);
    expect(alone).toEqual(['doc_big.md']);
    for (const id of [...ids, 'doc_big']) {
      expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
    }
    expect((await objects.getBuffer(artifactKeys.text('doc_b')))?.toString()).toContain('doc_b policy');
  });

  it('takes small documents a dead worker had started in one batch, but starts and parses each alone', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`, { attempts: 1 });
    const { parser, groups, alone } = recordingParser();
    const starts = recordStarts();
    const claims: string[][] = [];
    const claim = work.claimDocuments.bind(work);
    work.claimDocuments = async (documentIds, workerId, options) => {
      const c = await claim(documentIds, workerId, options);
      claims.push(c.claimed.map((d) => d.id));
      return c;
    };
    await processDocuments(deps({ parser }), ids, WORKER);

    expect(claims).toEqual([ids]);
    // A fault that ends the worker again raises the attempts of the document it met only.
    expect(starts).toEqual(ids.map((id) => [id]));
    expect(groups).toEqual([]);
    expect(alone).toEqual(['doc_a.md', 'doc_b.md', 'doc_c.md']);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 2 });
  });
});
