/** Sections of the configuration (config.ts) that have their own types: parsers and models. */

/** How documents are parsed: in a sandbox, with which tools, within which limits. */
export interface ParserConfig {
  /**
   * `required`: the worker refuses to start without bubblewrap. `auto`: falls back to a plain child
   * process. `process`: plain child processes, bubblewrap not tried (a host that forbids it, chosen
   * knowingly: docs/kubernetes.md).
   */
  isolation: 'required' | 'auto' | 'process';
  /** `full` adds OCR (tesseract) and legacy Office conversion (LibreOffice). */
  profile: 'default' | 'full';
  limits: ParserLimits;
  /** Documents of one workspace one parser process may parse before it ends (1: a process each). */
  documentsPerProcess: number;
  /** How long a parser process waits for its workspace's next document before it ends. */
  idleSeconds: number;
  /** Where to look for bubblewrap: PARSER_BWRAP_PATH, else the PATH the worker was started with. */
  bwrapSearchPath: string;
}

export interface ParserLimits {
  /** Wall-clock time for one document. */
  timeoutSeconds: number;
  /** CPU time of the sandboxed process tree for one document. */
  cpuSeconds: number;
  /** Resident memory of the whole sandboxed process tree. */
  memoryBytes: number;
  /** Size of the extracted text (and of everything the parser writes back). */
  outputBytes: number;
  /** Size of the sandbox's private temporary folder. */
  tmpBytes: number;
  /** Total inflated size of the parts of a zip-based file (DOCX, XLSX, EPUB…). */
  unpackedBytes: number;
}

export interface ModelRetryConfig {
  timeoutMs: number;
  maxRetries: number;
}

export interface ModelsConfig {
  /** Base URL of a Hugging Face-compatible hub (MODEL_HUB_URL). */
  hubUrl: string;
  /** Verified copies live in `<dir>/<repo>/<revision>/` (MODELS_DIR, default DATA_DIR/models). */
  dir: string;
  /** After a failed download (hub unreachable), the next attempt; 0 = only at the next start. */
  retrySeconds: number;
}

/** A model repository on the hub, pinned to a commit and to the SHA-256 of every file used. */
export interface HubModelRef {
  repo: string;
  revision: string;
  /** The ONNX graph's path in the repository. */
  onnxFile: string;
  /** Every file downloaded (the graph and tokenizer.json). */
  files: { path: string; sha256: string }[];
}

/** An ONNX model and its tokenizer.json: in a folder, or downloaded once from the hub by name. */
export type LocalModelSource = { kind: 'dir'; dir: string } | ({ kind: 'hub' } & HubModelRef);

export type RerankConfig =
  | { provider: 'none' }
  | {
      provider: 'local';
      source: LocalModelSource;
      candidates: number;
      maxTokens: number;
      batchSize: number;
      threads: number;
    }
  | ({
      provider: 'http';
      /** The endpoint itself, e.g. http://tei:8080/rerank or https://api.cohere.com/v2/rerank. */
      url: string;
      /** The request and response shape: TEI's `/rerank` or Cohere's `/v2/rerank`. */
      api: 'tei' | 'cohere';
      model: string | undefined;
      apiKey: string | undefined;
      candidates: number;
    } & ModelRetryConfig);

export type EmbeddingsConfig =
  | { provider: 'none' }
  | ({
      provider: 'openai';
      baseUrl: string;
      apiKey: string | undefined;
      model: string;
      dimensions: number | undefined;
      batchSize: number;
      concurrency: number;
      queryPrefix: string;
      passagePrefix: string;
    } & ModelRetryConfig)
  | {
      provider: 'local';
      source: LocalModelSource;
      maxTokens: number;
      batchSize: number;
      pooling: 'mean' | 'cls';
      threads: number;
      queryPrefix: string;
      passagePrefix: string;
    };

export interface LlmConfig extends ModelRetryConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  maxTokens: number;
  temperature: number;
}
