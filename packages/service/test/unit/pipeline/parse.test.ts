// Parsing (processing/pipeline/parse.ts): a group's parse, its failures, and the languages it tells.
import { describe, expect, it } from 'vitest';
import type { DocumentParser } from '../../../src/domain/ports.js';
import { DocumentFailure } from '../../../src/errors.js';
import { processDocuments } from '../../../src/processing/pipeline/index.js';
import { inProcessPreparer } from '../../../src/processing/prepare.js';
import {
  deps,
  inProcessParser,
  recordingParser,
  TEXT,
  upload,
  usePipelineBench,
  WORKER,
  work,
} from '../../support/pipeline.js';

usePipelineBench();

describe('parsing documents in groups and alone', () => {
  it('takes the languages a group parse told, and asks for them only when the workspace leaves its language to detection', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    const asked: (boolean | undefined)[] = [];
    const parser: DocumentParser = {
      ...inProcessParser,
      parseGroup: async (documents, group, signal, options) => {
        asked.push(options?.detectLanguage);
        const parsed = await inProcessParser.parseGroup!(documents, group, signal);
        // Told German, where the worker's own detector would say English: the told one must win.
        return parsed.map((p) =>
          options?.detectLanguage && !(p instanceof DocumentFailure) && p
            ? { ...p, language: { language: 'de', reliable: true } }
            : p,
        );
      },
    };
    let detected = 0;
    const languages = {
      detect: async () => {
        detected++;
        return { language: 'en', reliable: true };
      },
    };
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    await processDocuments(deps({ parser, preparer: inProcessPreparer(languages) }), ids, WORKER);
    expect(asked).toEqual([true]);
    expect(detected).toBe(0);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', language: 'de' });

    // A workspace that sets its language: nothing to tell.
    const set = ['doc_d', 'doc_e'];
    for (const id of set) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    const claim = work.claimDocuments.bind(work);
    work.claimDocuments = async (documentIds, workerId, options) => ({
      ...(await claim(documentIds, workerId, options)),
      workspaceLanguage: 'fr',
    });
    await processDocuments(deps({ parser, preparer: inProcessPreparer(languages) }), set, WORKER);
    expect(asked).toEqual([true, false]);
    for (const id of set) expect(work.document(id)).toMatchObject({ status: 'ready', language: 'fr' });
  });

  it('fails the one document the group failed, and parses alone those the group did not parse', async () => {
    for (const id of ['doc_a', 'doc_b', 'doc_c']) await upload(id, TEXT);
    const { parser, groups, alone } = recordingParser((filename) =>
      filename === 'doc_b.md'
        ? new DocumentFailure('corrupt_document', 'The file could not be parsed: bad bytes')
        : filename === 'doc_c.md'
          ? 'not parsed'
          : undefined,
    );
    await processDocuments(deps({ parser }), ['doc_a', 'doc_b', 'doc_c'], WORKER);

    expect(groups).toHaveLength(1);
    expect(alone).toEqual(['doc_c.md']);
    expect(work.document('doc_a').status).toBe('ready');
    expect(work.document('doc_b')).toMatchObject({ status: 'failed', errorCode: 'corrupt_document' });
    expect(work.document('doc_c').status).toBe('ready');
  });

  it('parses alone every document of a group the parser broke on', async () => {
    for (const id of ['doc_a', 'doc_b']) await upload(id, TEXT);
    const alone: string[] = [];
    const parser: DocumentParser = {
      parse: async (input, signal) => {
        alone.push(input.filename);
        return inProcessParser.parse(input, signal);
      },
      parseGroup: async () => {
        throw new Error('the parser process could not start');
      },
    };
    await processDocuments(deps({ parser }), ['doc_a', 'doc_b'], WORKER);

    expect(alone).toEqual(['doc_a.md', 'doc_b.md']);
    for (const id of ['doc_a', 'doc_b']) expect(work.document(id).status).toBe('ready');
  });
});
