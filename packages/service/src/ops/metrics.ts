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
}

/** The Prometheus registry of one process. Gauges about stored state are read from the database at scrape time. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly stageDuration: Histogram<'stage'>;
  readonly documentsProcessed: Counter<'status'>;
  readonly rerankDuration: Histogram<'outcome'>;

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
    if (!sources) return;
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

  observeRerank = (seconds: number, outcome: 'ok' | 'failed'): void => {
    this.rerankDuration.observe({ outcome }, seconds);
  };
}
