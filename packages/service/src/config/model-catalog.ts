/**
 * Models that can be switched on by name alone (`EMBEDDINGS_MODEL=<id>`, `RERANK_MODEL=<id>`): each
 * is pinned to one commit of its Hugging Face repository and to the SHA-256 of every file the
 * service downloads from it, so that a name always means the same bytes. Any other model is named
 * with its revision and checksums in the settings (`*_MODEL_REVISION`, `*_MODEL_SHA256`).
 *
 * The checksums are those of the files at these commits (for files stored in Git LFS, the LFS object
 * id the hub reports as `X-Linked-Etag`), as pinned by several unrelated public projects that agree
 * on them. They could not be recomputed here: these machines cannot reach the hub. A download whose
 * bytes do not hash to them is refused, so a wrong entry fails loudly rather than serving a model.
 */

export interface PinnedFile {
  /** Path in the repository, e.g. `onnx/model.onnx`. */
  path: string;
  sha256: string;
}

export interface CatalogModel {
  kind: 'embedder' | 'cross-encoder';
  /** A commit of the repository. */
  revision: string;
  /** The ONNX graph's path in the repository. */
  onnxFile: string;
  /** Every file the service downloads: the graph and `tokenizer.json`. */
  files: PinnedFile[];
  /** Embedders: how token vectors become one vector (the model card's choice). */
  pooling?: 'mean' | 'cls';
  /** Embedders: the instruction the model card puts before short retrieval queries. */
  queryPrefix?: string;
}

/** BERT's uncased WordPiece `tokenizer.json`, shared byte for byte by bge-small and the MS MARCO cross-encoder. */
const BERT_UNCASED_TOKENIZER = 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66';

const MS_MARCO_MINILM: CatalogModel = {
  kind: 'cross-encoder',
  revision: 'c5ee24cb16019beea0893ab7796b1df96625c6b8',
  onnxFile: 'onnx/model.onnx',
  files: [
    { path: 'onnx/model.onnx', sha256: '5d3e70fd0c9ff14b9b5169a51e957b7a9c74897afd0a35ce4bd318150c1d4d4a' },
    { path: 'tokenizer.json', sha256: BERT_UNCASED_TOKENIZER },
  ],
};

export const MODEL_CATALOG: Readonly<Record<string, CatalogModel>> = {
  'BAAI/bge-small-en-v1.5': {
    kind: 'embedder',
    revision: '5c38ec7c405ec4b44b94cc5a9bb96e735b38267a',
    onnxFile: 'onnx/model.onnx',
    files: [
      { path: 'onnx/model.onnx', sha256: '828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35' },
      { path: 'tokenizer.json', sha256: BERT_UNCASED_TOKENIZER },
    ],
    pooling: 'cls',
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
  },
  'sentence-transformers/all-MiniLM-L6-v2': {
    kind: 'embedder',
    revision: 'c9745ed1d9f207416be6d2e6f8de32d1f16199bf',
    onnxFile: 'onnx/model.onnx',
    files: [
      { path: 'onnx/model.onnx', sha256: '6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452' },
      { path: 'tokenizer.json', sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037' },
    ],
    pooling: 'mean',
  },
  'cross-encoder/ms-marco-MiniLM-L6-v2': MS_MARCO_MINILM,
  // The repository's former name, which the hub still redirects to the new one.
  'cross-encoder/ms-marco-MiniLM-L-6-v2': MS_MARCO_MINILM,
};
