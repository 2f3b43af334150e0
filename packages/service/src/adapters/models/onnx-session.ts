import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { WordPieceTokenizer } from './wordpiece.js';

/** Where an ONNX model and its tokenizer.json are, and what to call it. */
export interface OnnxModelLocation {
  /** Folder with the graph (`model.onnx` or `onnx/model.onnx` unless `onnxFile` says) and `tokenizer.json`. */
  dir: string;
  /** The graph's path inside `dir`, when it is not one of the usual two. */
  onnxFile?: string | undefined;
  /** The model's name in its id (a Hugging Face id); the folder's name when unset. */
  name?: string | undefined;
  threads: number;
}

export interface LoadedOnnxModel {
  /** `local:<name>:<first 12 hex digits of the graph's SHA-256>`: another file is another model. */
  id: string;
  session: Ort.InferenceSession;
  ort: typeof Ort;
  tokenizer: WordPieceTokenizer;
}

/** Reads the graph and tokenizer and starts an onnxruntime session (CPU) that takes BERT's inputs. */
export async function loadOnnxModel(where: OnnxModelLocation, setting: string): Promise<LoadedOnnxModel> {
  const candidates = where.onnxFile
    ? [path.join(where.dir, where.onnxFile)]
    : [path.join(where.dir, 'model.onnx'), path.join(where.dir, 'onnx', 'model.onnx')];
  let modelBytes: Buffer | undefined;
  for (const file of candidates) {
    modelBytes = await readFile(file).catch(() => undefined);
    if (modelBytes) break;
  }
  if (!modelBytes) {
    const names = candidates.map((c) => path.relative(where.dir, c)).join(' nor ');
    throw new Error(`${setting} ${where.dir} has no ${names}`);
  }
  const tokenizer = await WordPieceTokenizer.fromFile(path.join(where.dir, 'tokenizer.json'));
  // Loaded on demand: the native runtime is only needed when a local model is configured.
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(modelBytes, {
    intraOpNumThreads: where.threads,
    graphOptimizationLevel: 'all',
  });
  for (const name of ['input_ids', 'attention_mask']) {
    if (!session.inputNames.includes(name)) {
      throw new Error(`the ONNX model has no "${name}" input (inputs: ${session.inputNames.join(', ')})`);
    }
  }
  const digest = createHash('sha256').update(modelBytes).digest('hex').slice(0, 12);
  const name = where.name ?? path.basename(path.resolve(where.dir));
  return { id: `local:${name}:${digest}`, session, ort, tokenizer };
}
