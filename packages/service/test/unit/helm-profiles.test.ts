import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  byKind,
  chart,
  examples,
  type K8sObject,
  lint,
  named,
  podSpecs,
  render,
  renderFails,
  skip,
} from '../support/helm.js';

/**
 * What the chart offers operators beyond rendering valid objects: the worker's two sandbox profiles
 * and the Pod Security level each needs, spreading and disruption budgets, the annotation that rolls
 * the pods after the Secret changed. Rendered with the real helm binary (test/support/helm.ts).
 */

type PodSpec = K8sObject['spec'];
type Container = {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: rendered objects; their schemas check their shape
  securityContext?: Record<string, any>;
  ports?: { hostPort?: number }[];
};

/** Volume types the Pod Security level "restricted" allows. */
const RESTRICTED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/**
 * Which Pod Security Standards level (https://kubernetes.io/docs/concepts/security/pod-security-standards/)
 * a pod meets at best, by the rules of the levels for what the chart can render: the checks of
 * "baseline", then the further ones of "restricted".
 */
function podSecurityLevel(spec: PodSpec): 'restricted' | 'baseline' | 'privileged' {
  const containers = [...(spec.initContainers ?? []), ...spec.containers] as Container[];
  const pod = spec.securityContext ?? {};
  const seccomp = (c: Container) => c.securityContext?.seccompProfile?.type ?? pod.seccompProfile?.type;
  const baseline =
    !spec.hostNetwork &&
    !spec.hostPID &&
    !spec.hostIPC &&
    !(spec.volumes ?? []).some((v: Record<string, unknown>) => 'hostPath' in v) &&
    pod.appArmorProfile?.type !== 'Unconfined' &&
    pod.seccompProfile?.type !== 'Unconfined' &&
    !pod.sysctls &&
    containers.every((c) => {
      const sc = c.securityContext ?? {};
      return (
        !sc.privileged &&
        (sc.procMount ?? 'Default') === 'Default' &&
        sc.appArmorProfile?.type !== 'Unconfined' &&
        sc.seccompProfile?.type !== 'Unconfined' &&
        !(c.ports ?? []).some((p) => p.hostPort) &&
        (sc.capabilities?.add ?? []).length === 0
      );
    });
  if (!baseline) return 'privileged';
  const restricted =
    (spec.volumes ?? []).every((v: Record<string, unknown>) =>
      Object.keys(v).every((k) => k === 'name' || RESTRICTED_VOLUMES.includes(k)),
    ) &&
    pod.runAsUser !== 0 &&
    containers.every((c) => {
      const sc = c.securityContext ?? {};
      return (
        sc.allowPrivilegeEscalation === false &&
        (sc.runAsNonRoot ?? pod.runAsNonRoot) === true &&
        sc.runAsUser !== 0 &&
        ['RuntimeDefault', 'Localhost'].includes(seccomp(c)) &&
        (sc.capabilities?.drop ?? []).includes('ALL')
      );
    });
  return restricted ? 'restricted' : 'baseline';
}

const levels = (objects: K8sObject[]) =>
  Object.fromEntries(
    podSpecs(objects).map(({ owner, spec }) => [owner.replace(/^.*-/, ''), podSecurityLevel(spec)]),
  );
const example = (name: string) => ['-f', path.join(chart, 'examples', name)];
const podTemplate = (objects: K8sObject[], component: string) =>
  named(objects, 'Deployment', `-${component}`)!.spec.template;

describe.skipIf(skip)('the Helm chart for operators', () => {
  it('passes helm lint --strict with the defaults and every example', async () => {
    for (const args of [['--set', 'existingSecret=s'], ...examples.map(example)]) {
      const { ok, output } = await lint(args);
      expect(ok, output).toBe(true);
    }
  });

  it('runs the worker in the bubblewrap sandbox by default, which needs Pod Security "privileged"', async () => {
    const objects = await render(['--set', 'existingSecret=s']);
    const pod = podTemplate(objects, 'worker').spec;
    expect(pod.hostUsers).toBe(false);
    expect(pod.securityContext.seccompProfile).toEqual({ type: 'Unconfined' });
    expect(pod.containers[0].securityContext).toMatchObject({
      procMount: 'Unmasked',
      appArmorProfile: { type: 'Unconfined' },
    });
    expect(pod.containers[0].env).toContainEqual({ name: 'PARSER_ISOLATION', value: 'required' });
    // Only the worker needs more than "restricted".
    expect(levels(objects)).toEqual({ server: 'restricted', worker: 'privileged', migrate: 'restricted' });
  });

  it('offers a restricted worker profile: every pod meets Pod Security "restricted", parsers unsandboxed', async () => {
    for (const args of [
      ['--set', 'existingSecret=s', '--set', 'worker.sandbox.profile=restricted'],
      example('restricted.yaml'),
    ]) {
      const objects = await render(args);
      expect(levels(objects), args.join(' ')).toEqual({
        server: 'restricted',
        worker: 'restricted',
        migrate: 'restricted',
      });
      const pod = podTemplate(objects, 'worker').spec;
      // The host's users (no field), the runtime's seccomp profile, /proc as masked as anywhere.
      expect(pod.hostUsers).toBeUndefined();
      const c = pod.containers[0];
      expect(c.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      // Said, not hidden: the worker parses in plain processes and warns at each start.
      expect(c.env).toContainEqual({ name: 'PARSER_ISOLATION', value: 'process' });
    }
    // A field of worker.securityContext (a seccomp profile of the node's own) takes precedence.
    const own = await render([
      '--set',
      'existingSecret=s',
      '--set',
      'worker.sandbox.profile=restricted',
      '--set-json',
      'worker.securityContext.seccompProfile={"type":"Localhost","localhostProfile":"docslurp.json"}',
    ]);
    expect(podTemplate(own, 'worker').spec.containers[0].securityContext.seccompProfile).toEqual({
      type: 'Localhost',
      localhostProfile: 'docslurp.json',
    });
    expect(levels(own).worker).toBe('restricted');
  });

  it('refuses an unknown profile and the replaced worker.hostUsers', async () => {
    expect(await renderFails(['--set', 'existingSecret=s', '--set', 'worker.sandbox.profile=none'])).toMatch(
      /worker\/sandbox\/profile': value must be one of 'userns', 'restricted'/,
    );
    expect(await renderFails(['--set', 'existingSecret=s', '--set', 'worker.hostUsers=true'])).toMatch(
      /worker.hostUsers is set by worker.sandbox.profile now/,
    );
  });

  it('spreads the production servers over nodes and zones, with disruption budgets for both', async () => {
    const objects = await render(example('production.yaml'));
    for (const component of ['server', 'worker']) {
      const template = podTemplate(objects, component);
      const constraints = template.spec.topologySpreadConstraints as {
        topologyKey: string;
        whenUnsatisfiable: string;
        labelSelector: { matchLabels: Record<string, string> };
        matchLabelKeys: string[];
      }[];
      expect(constraints.map((c) => c.topologyKey)).toEqual([
        'kubernetes.io/hostname',
        'topology.kubernetes.io/zone',
      ]);
      for (const c of constraints) {
        // Counting this component's pods, of this rollout.
        expect(c.labelSelector.matchLabels).toEqual(template.metadata.labels);
        expect(c.matchLabelKeys).toEqual(['pod-template-hash']);
      }
      // Two servers on one node only when no other node can take one.
      expect(constraints[0]!.whenUnsatisfiable).toBe(
        component === 'server' ? 'DoNotSchedule' : 'ScheduleAnyway',
      );
      const pdb = named(objects, 'PodDisruptionBudget', `-${component}`)!;
      expect(pdb.spec.maxUnavailable).toBe(1);
      expect(pdb.spec.selector.matchLabels).toEqual(template.metadata.labels);
    }
    // The autoscaled servers and the KEDA-scaled workers keep at least two: the budgets allow drains.
    expect(byKind(objects, 'HorizontalPodAutoscaler')[0]!.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(byKind(objects, 'ScaledObject')[0]!.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
  });

  it('prefers spreading by default, and never keeps a pod from being scheduled for it', async () => {
    const objects = await render(['--set', 'existingSecret=s']);
    for (const component of ['server', 'worker'])
      expect(podTemplate(objects, component).spec.topologySpreadConstraints).toEqual([
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: podTemplate(objects, component).metadata.labels },
          matchLabelKeys: ['pod-template-hash'],
        },
      ]);
    const none = await render([
      '--set',
      'existingSecret=s',
      '--set-json',
      'server.topologySpreadConstraints=[]',
    ]);
    expect(podTemplate(none, 'server').spec.topologySpreadConstraints).toBeUndefined();
  });

  it('rolls the server and the workers when secretRevision changes, keeping their own annotations', async () => {
    const annotations = async (...args: string[]) => {
      const objects = await render(['--set', 'existingSecret=s', ...args]);
      return {
        server: podTemplate(objects, 'server').metadata.annotations,
        worker: podTemplate(objects, 'worker').metadata.annotations,
      };
    };
    expect(await annotations()).toEqual({ server: undefined, worker: undefined });
    const first = await annotations(
      '--set',
      'secretRevision=81234',
      '--set',
      'server.podAnnotations.team=docs',
    );
    expect(first).toEqual({
      server: { team: 'docs', 'docslurp/secret-revision': '81234' },
      worker: { 'docslurp/secret-revision': '81234' },
    });
    // Another revision is another pod template: the Deployments roll.
    const next = await annotations('--set', 'secretRevision=81299');
    expect(next.worker).toEqual({ 'docslurp/secret-revision': '81299' });
    // "lookup" reads the Secret from the cluster; rendering without one says so instead of rolling nothing.
    expect(await renderFails(['--set', 'existingSecret=s', '--set', 'secretRevision=lookup'])).toMatch(
      /secretRevision=lookup: the Secret s was not found in namespace docs/,
    );
  });
});
