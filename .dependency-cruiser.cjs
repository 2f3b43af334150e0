/**
 * The layering rules of the service, checked by `npm run lint` (docs/architecture.md, decision 0011):
 * dependencies point one way, http → domain operations → ports ← adapters, and the SDK stands alone.
 */
const service = '^packages/service/src';
/** Domain code: records, ports and operations, free of HTTP and of storage clients. */
const domain = `${service}/(domain|access|ingestion|runs|documents|workspaces|accounts|search|answers|processing|parsing|text|webhooks|sources|evaluation)/`;
/** Clients of the infrastructure that only adapters (and the HTTP layer, for Fastify) may use. */
const infrastructure = `(^|/)node_modules/(${[
  'fastify',
  'fastify-[^/]+',
  '@fastify/[^/]+',
  'pg',
  'pg-boss',
  '@lancedb/[^/]+',
  'apache-arrow',
  '@aws-sdk/[^/]+',
  'ioredis',
  'rate-limiter-flexible',
  'onnxruntime-node',
  '@modelcontextprotocol/[^/]+',
  'prom-client',
].join('|')})/`;
/** The service's faces: each turns its protocol into calls of domain operations. */
const faces = `${service}/(http|mcp|main)/`;
/** Where adapters are chosen and wired: only the composition roots may name them. */
const wiring = `${service}/(adapters|main)/|${service}/(app|deps)\\.ts$`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes the modules one unit: neither can change or be tested without the other.',
      from: { path: '^packages/' },
      to: { circular: true },
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
      name: 'domain-not-to-infrastructure',
      severity: 'error',
      comment: 'Domain code knows ports, not Fastify, PostgreSQL, pg-boss, LanceDB or the AWS SDK.',
      from: { path: domain },
      to: { path: infrastructure },
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
        "The pipeline reads a source's items through the SourceItems port (domain/ports.ts), never the sources feature's modules; only the worker, which runs syncs as jobs, calls that feature.",
      from: { path: `${service}/processing/`, pathNot: `${service}/processing/worker\\.ts$` },
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
