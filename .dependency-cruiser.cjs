/**
 * The layering rules of the service, checked by `npm run lint` (docs/architecture.md, decision 0011):
 * dependencies point one way, http → domain operations → ports ← adapters, and the SDK stands alone.
 */
const service = '^packages/service/src';
/** Domain code: records, ports and operations, free of HTTP and of storage clients. */
const domain = `${service}/(domain|ingestion|runs|documents|workspaces|accounts|search|answers|processing|parsing|text|webhooks|sources)/`;
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
].join('|')})/`;

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
      to: { path: `${service}/(adapters|http|main)/|${service}/(app|deps)\\.ts$` },
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
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
  },
};
