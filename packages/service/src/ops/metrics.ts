import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DocumentStage } from '../domain/types.js';

export interface MetricsSources {
  documentCounts: () => Promise<Record<string, number>>;
  runCounts: () => Promise<Record<string, number>>;
  queueDepth: () => Promise<{ queued: number; active: number }>;
  /** Bytes the search index keeps in memory in this process (bounded; see the LanceDB adapter). */
  searchIndexCacheBytes: () => number;
  /** Sandboxed parser processes this process has started for documents. */
  parserProcessesStarted: () => number;
  /** Webhook deliveries waiting to be sent (all accounts). */
  webhookBacklog: () => Promise<{ pending: number; due: number }>;
}

/** The Prometheus registry of one process. Gauges about stored state are read from the database at scrape time. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly stageDuration: Histogram<'stage'>;
  readonly documentsProcessed: Counter<'status'>;
  readonly rerankDuration: Histogram<'outcome'>;
  readonly batchesClaimed: Counter;
  readonly batchesInProgress: Gauge;
  readonly batchDuration: Histogram;
  readonly indexCommitDuration: Histogram;
  readonly indexCommitRetries: Counter;

  constructor(sources: MetricsSources | undefined) {
    collectDefaultMetrics({ register: this.registry, prefix: 'docslurp_' });
    this.httpDuration = new Histogram({
      name: 'docslurp_http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.stageDuration = new Histogram({
      name: 'docslurp_document_stage_duration_seconds',
      help: 'Time spent per document in each processing stage',
      labelNames: ['stage'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [this.registry],
    });
    this.documentsProcessed = new Counter({
      name: 'docslurp_documents_processed_total',
      help: 'Documents finished by this process, by resulting status',
      labelNames: ['status'],
      registers: [this.registry],
    });
    this.rerankDuration = new Histogram({
      name: 'docslurp_search_rerank_duration_seconds',
      help: 'Time the reranker took to score the candidates of one search (RERANK_PROVIDER), by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    // A worker's batches (claimed together, processed and indexed together: decision 0010).
    this.batchesClaimed = new Counter({
      name: 'docslurp_batches_claimed_total',
      help: 'Batches of document jobs this process has taken',
      registers: [this.registry],
    });
    this.batchesInProgress = new Gauge({
      name: 'docslurp_batches_in_progress',
      help: 'Batches this process is processing now',
      registers: [this.registry],
    });
    this.batchDuration = new Histogram({
      name: 'docslurp_batch_duration_seconds',
      help: 'Time from taking a batch of document jobs to finishing it',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers: [this.registry],
    });
    this.indexCommitDuration = new Histogram({
      name: 'docslurp_index_commit_duration_seconds',
      help: 'Time of one search-index commit that replaces the rows of a group of documents',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.indexCommitRetries = new Counter({
      name: 'docslurp_index_commit_retries_total',
      help: 'Extra attempts the search index needed to commit because another writer committed first',
      registers: [this.registry],
    });
    if (!sources) return;
    new Gauge({
      name: 'docslurp_webhook_deliveries',
      help: 'Webhook deliveries not sent yet (pending), and those whose next attempt is due now (due)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const b = await sources.webhookBacklog().catch(() => undefined);
        this.reset();
        if (b) {
          this.set({ state: 'pending' }, b.pending);
          this.set({ state: 'due' }, b.due);
        }
      },
    });
    new Gauge({
      name: 'docslurp_documents',
      help: 'Documents by state (all accounts)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const counts = await sources.documentCounts().catch(() => ({}));
        this.reset();
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'docslurp_runs',
      help: 'Runs by state (all accounts)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const counts = await sources.runCounts().catch(() => ({}));
        this.reset();
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'docslurp_queue_depth',
      help: 'Document jobs waiting (queued) and being processed (active)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const d = await sources.queueDepth().catch(() => undefined);
        this.reset();
        if (d) {
          this.set({ state: 'queued' }, d.queued);
          this.set({ state: 'active' }, d.active);
        }
      },
    });
    new Gauge({
      name: 'docslurp_search_index_cache_bytes',
      help: "Memory held by this process's search index caches (opened indexes, file and version metadata)",
      registers: [this.registry],
      collect() {
        this.set(sources.searchIndexCacheBytes());
      },
    });
    new Counter({
      name: 'docslurp_parser_processes_started_total',
      help: 'Sandboxed parser processes started for documents (each parses up to PARSER_DOCUMENTS_PER_PROCESS of one workspace)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(sources.parserProcessesStarted());
      },
    });
  }

  observeStage = (stage: DocumentStage, seconds: number): void => {
    this.stageDuration.observe({ stage }, seconds);
  };

  observeFinished = (status: string): void => {
    this.documentsProcessed.inc({ status });
  };

  observeRerank = (seconds: number, outcome: 'ok' | 'failed'): void => {
    this.rerankDuration.observe({ outcome }, seconds);
  };

  /** One index commit: how long it took and how many attempts it needed (LanceDB retries conflicts). */
  observeCommit = (seconds: number, attempts: number): void => {
    this.indexCommitDuration.observe(seconds);
    if (attempts > 1) this.indexCommitRetries.inc(attempts - 1);
  };

  /** Wraps one batch: counted when taken, in progress until done, timed. */
  batch = async <T>(work: () => Promise<T>): Promise<T> => {
    this.batchesClaimed.inc();
    this.batchesInProgress.inc();
    const end = this.batchDuration.startTimer();
    try {
      return await work();
    } finally {
      end();
      this.batchesInProgress.dec();
    }
  };
}
