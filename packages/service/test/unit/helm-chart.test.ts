import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { envSchema } from '../../src/config/environment.js';
import {
  byKind,
  chart,
  examples,
  modelOf,
  named,
  podSpecs,
  render,
  renderFails,
  secretKeys,
  skip,
} from '../support/helm.js';

describe.skipIf(skip)('the Helm chart', () => {
  const variants: [string, string[]][] = [
    ['the defaults', ['--set', 'existingSecret=docslurp']],
    ...examples.map((f): [string, string[]] => [f, ['-f', path.join(chart, 'examples', f)]]),
    ['plain migration Job', ['--set', 'existingSecret=docslurp', '--set', 'migrations.mode=job']],
    ['NetworkPolicies', ['--set', 'existingSecret=docslurp', '--set', 'networkPolicy.enabled=true']],
  ];

  it.each(variants)('renders %s into objects the Kubernetes and KEDA schemas accept', async (_, args) => {
    const objects = await render(args);
    expect(objects.length).toBeGreaterThan(4);
    for (const o of objects) {
      const Model = await modelOf(o);
      expect(() => new Model(o).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
    }
    // Probes and resource requests on every container; the secret only by reference.
    const secret = new Set(secretKeys());
    for (const { owner, spec } of podSpecs(objects)) {
      for (const c of spec.containers) {
        const where = `${owner} ${c.name}`;
        expect(c.resources?.requests?.cpu, where).toBeTruthy();
        expect(c.resources?.requests?.memory, where).toBeTruthy();
        if (!owner.startsWith('Job/')) {
          expect(c.livenessProbe?.httpGet?.path, where).toBe('/health');
          expect(c.readinessProbe?.httpGet?.path, where).toBe('/ready');
          expect(c.startupProbe?.httpGet?.path, where).toBe('/health');
        }
        for (const e of c.env) {
          if (secret.has(e.name)) {
            expect(e.value, `${where} ${e.name}`).toBeUndefined();
            expect(e.valueFrom.secretKeyRef.name, where).toMatch(/^docslurp/);
          }
        }
      }
    }
    // No temporary volume without a size limit: one without fills the node's disk.
    for (const { owner, spec } of podSpecs(objects))
      for (const v of spec.volumes.filter((v: { emptyDir?: unknown }) => v.emptyDir))
        expect(v.emptyDir.sizeLimit, `${owner} ${v.name}`).toMatch(/^\d+(Mi|Gi)$/);
    expect(byKind(objects, 'Secret')).toEqual([]);
    // No credential in a URL anywhere in what was rendered.
    expect(JSON.stringify(objects)).not.toMatch(/[a-z+]+:\/\/[^/\s"@]+:[^/\s"@]+@/);
  });

  it('runs migrations as a pre-install/pre-upgrade hook, or as a plain Job for GitOps', async () => {
    const hook = named(await render(['--set', 'existingSecret=s']), 'Job', '-migrate')!;
    expect(hook.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    expect(hook.spec.template.spec.containers[0].args).toEqual(['migrate']);
    const plain = byKind(await render(['--set', 'existingSecret=s', '--set', 'migrations.mode=job']), 'Job');
    expect(plain).toHaveLength(1);
    expect(plain[0]!.metadata.annotations?.['helm.sh/hook']).toBeUndefined();
    expect(plain[0]!.metadata.name).toBe('docs-docslurp-migrate-0-1-0');
  });

  it('scales workers with a KEDA ScaledObject on the worker Deployment, at least one replica', async () => {
    const objects = await render(['-f', path.join(chart, 'examples', 'production.yaml')]);
    const worker = named(objects, 'Deployment', '-worker')!;
    const scaled = byKind(objects, 'ScaledObject');
    expect(scaled).toHaveLength(1);
    const so = scaled[0]!.spec;
    expect(so.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: worker.metadata.name });
    expect(so.minReplicaCount).toBeGreaterThanOrEqual(1);
    expect(worker.spec.replicas).toBeUndefined();
    expect(so.triggers[0].type).toBe('postgresql');
    expect(so.triggers[0].metadata.query).toMatch(/status IN \('queued', 'processing'\)/);
    const auth = named(objects, 'TriggerAuthentication', '-worker')!;
    expect(so.triggers[0].authenticationRef.name).toBe(auth.metadata.name);
    expect(auth.spec.secretTargetRef[0]).toMatchObject({ parameter: 'connection', name: 'docslurp-prod' });
    // Longer than one batch, which may hold a parse of up to PARSER_TIMEOUT_SECONDS.
    expect(worker.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(300);
    expect(
      await renderFails(['--set', 'existingSecret=s', '--set', 'worker.terminationGracePeriodSeconds=200']),
    ).toMatch(/must be longer than one batch/);
    expect(
      await renderFails([
        '--set',
        'existingSecret=s',
        '--set',
        'worker.keda.enabled=true',
        '--set',
        'worker.keda.minReplicaCount=0',
      ]),
    ).toMatch(/minReplicaCount/);
  });

  it('gives the worker what the parser sandbox needs, and nothing privileged', async () => {
    const objects = await render(['--set', 'existingSecret=s']);
    const pod = named(objects, 'Deployment', '-worker')!.spec.template.spec;
    const c = pod.containers[0];
    expect(pod.hostUsers).toBe(false);
    expect(c.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      seccompProfile: { type: 'Unconfined' },
      appArmorProfile: { type: 'Unconfined' },
      procMount: 'Unmasked',
      capabilities: { drop: ['ALL'] },
    });
    expect(c.securityContext.privileged).toBeUndefined();
    expect(c.env).toContainEqual({ name: 'PARSER_ISOLATION', value: 'required' });
    expect(c.env).toContainEqual({ name: 'WORKER_HTTP_PORT', value: '9090' });
    const server = named(objects, 'Deployment', '-server')!.spec.template.spec;
    expect(server.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
  });

  it('mounts no service-account token into any pod, with the chart’s account or one of your own', async () => {
    const own = ['--set', 'existingSecret=s', '--set', 'serviceAccount.create=false'];
    const cases: [string, string[]][] = [
      ['docs-docslurp', ['--set', 'existingSecret=s']],
      ['docs-docslurp', ['-f', path.join(chart, 'examples', 'aws-s3.yaml')]],
      ['platform-default', [...own, '--set', 'serviceAccount.name=platform-default']],
      ['default', own],
    ];
    for (const [account, args] of cases) {
      const objects = await render(args);
      const pods = podSpecs(objects);
      expect(pods).toHaveLength(3);
      // On the pod itself: an account the chart did not make may well have automounting on.
      for (const { owner, spec } of pods) {
        expect(spec.serviceAccountName, owner).toBe(account);
        expect(spec.automountServiceAccountToken, `${owner} with ${account}`).toBe(false);
      }
      for (const sa of byKind(objects, 'ServiceAccount')) expect(sa.automountServiceAccountToken).toBe(false);
    }
  });

  it('sizes the worker’s /tmp for the documents its batches hold, unless told a size', async () => {
    const volumes = async (args: string[]) =>
      Object.fromEntries(
        podSpecs(await render(['--set', 'existingSecret=s', ...args])).map(({ owner, spec }) => [
          owner.replace(/^.*-/, ''),
          Object.fromEntries(
            spec.volumes.map((v: { name: string; emptyDir: { sizeLimit: string } }) => [
              v.name,
              v.emptyDir.sizeLimit,
            ]),
          ),
        ]),
      );
    // The defaults: one batch, the current and the next document of up to 512 MiB each, + 512 MiB.
    expect(await volumes([])).toEqual({
      server: { tmp: '512Mi', data: '2Gi' },
      worker: { tmp: '1536Mi', data: '2Gi' },
      migrate: { tmp: '128Mi', data: '128Mi' },
    });
    const set = (pairs: Record<string, string>) =>
      Object.entries(pairs).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    // Two batches of documents up to 1 GiB: 2 x 2 x 1024 + 512.
    expect(
      (
        await volumes(
          set({ 'config.WORKER_DOC_CONCURRENCY': '2', 'config.UPLOAD_MAX_FILE_BYTES': String(2 ** 30) }),
        )
      ).worker!.tmp,
    ).toBe('4608Mi');
    // URLs may be larger than uploads: the larger of the two counts (and a part MiB is a whole one).
    expect((await volumes(set({ 'config.URL_FETCH_MAX_BYTES': String(3 * 2 ** 30 + 1) }))).worker!.tmp).toBe(
      `${2 * 3 * 1024 + 1 + 512}Mi`,
    );
    expect(
      await volumes(set({ 'worker.sizeLimits.tmp': '20Gi', 'server.sizeLimits.data': '8Gi' })),
    ).toMatchObject({
      server: { data: '8Gi' },
      worker: { tmp: '20Gi' },
    });
  });

  it('offers NetworkPolicies, off by default: the server from the ingress only, out only where needed', async () => {
    expect(byKind(await render(['--set', 'existingSecret=s']), 'NetworkPolicy')).toEqual([]);
    const policies = async (...args: string[]) => {
      const objects = await render([
        '--set',
        'existingSecret=s',
        '--set',
        'networkPolicy.enabled=true',
        ...args,
      ]);
      const all = byKind(objects, 'NetworkPolicy');
      // Every pod the chart makes is held by exactly one policy, both ways: none is left open.
      for (const o of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
        const labels = o.spec.template.metadata.labels as Record<string, string>;
        const holding = all.filter((p) =>
          Object.entries(p.spec.podSelector.matchLabels).every(([k, v]) => labels[k] === v),
        );
        expect(holding, o.metadata.name).toHaveLength(1);
        expect([...holding[0]!.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
      }
      const spec = (c: string) => named(all, 'NetworkPolicy', `-${c}`)!.spec;
      return { server: spec('server'), worker: spec('worker'), migrate: spec('migrate'), objects };
    };
    type Rule = {
      to?: { ipBlock?: { cidr: string; except: string[] } }[];
      ports?: { port: number; protocol: string }[];
    };
    /** Where a policy lets its pods connect: "port/protocol" (to any address or to peers) or "internet". */
    const reach = (egress: Rule[]) =>
      egress
        .flatMap((r) =>
          r.to?.some((t) => t.ipBlock?.cidr === '0.0.0.0/0')
            ? ['internet']
            : (r.ports ?? []).map((p) => `${p.port}/${p.protocol}`),
        )
        .sort();
    const base = ['443/TCP', '53/TCP', '53/UDP', '5432/TCP', '6432/TCP', '9000/TCP'];

    const { server, worker, migrate, objects } = await policies();
    const serverPort = named(objects, 'Deployment', '-server')!.spec.template.spec.containers[0].ports[0];
    expect(server.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }],
        ports: [{ port: serverPort.containerPort, protocol: 'TCP' }],
      },
    ]);
    // Nobody calls a worker or migrate (probes come from the node, which a policy never blocks).
    expect(worker.ingress).toEqual([]);
    expect(migrate.ingress).toEqual([]);
    // Redis is the server's alone; the internet (URLs, sources, webhooks) the workers'.
    expect(reach(server.egress)).toEqual([...base, '6379/TCP'].sort());
    expect(reach(worker.egress)).toEqual([...base, 'internet'].sort());
    expect(reach(migrate.egress)).toEqual(base);
    // DNS only to the cluster's DNS pods.
    expect(server.egress[0]).toMatchObject({
      to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
    });
    // The internet is every port of public addresses: not the cluster's or the cloud's metadata.
    const internet = (worker.egress as Rule[]).find((r) => r.to?.some((t) => t.ipBlock))!;
    expect(internet.ports).toBeUndefined();
    const v4 = internet.to!.find((t) => t.ipBlock!.cidr === '0.0.0.0/0')!.ipBlock!.except;
    for (const range of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8'])
      expect(v4).toContain(range);
    expect(internet.to!.find((t) => t.ipBlock!.cidr === '::/0')!.ipBlock!.except).toContain('fc00::/7');

    // Monitoring reaches the server's port and the workers' probe port, nothing else of a worker.
    const peer = { podSelector: { matchLabels: { app: 'prometheus' } } };
    const watched = await policies(
      '--set-json',
      `networkPolicy.monitoring=${JSON.stringify([peer])}`,
      '--set-json',
      `networkPolicy.extraEgress=${JSON.stringify([{ ports: [{ port: 8443, protocol: 'TCP' }] }])}`,
      '--set',
      'networkPolicy.egress.redis=null',
      '--set',
      'networkPolicy.internet.server=true',
    );
    expect(watched.worker.ingress).toEqual([{ from: [peer], ports: [{ port: 9090, protocol: 'TCP' }] }]);
    expect(watched.server.ingress[0].from).toContainEqual(peer);
    expect(reach(watched.server.egress)).toEqual([...base, '8443/TCP', 'internet'].sort());
    expect(reach(watched.worker.egress)).toEqual([...base, '8443/TCP', 'internet'].sort());
    expect(reach(watched.migrate.egress)).toEqual(base);
  });

  it('makes disruption budgets only for two replicas or more', async () => {
    const one = await render([
      '--set',
      'existingSecret=s',
      '--set',
      'server.replicas=1',
      '--set',
      'worker.replicas=1',
    ]);
    expect(byKind(one, 'PodDisruptionBudget')).toEqual([]);
    const two = await render(['--set', 'existingSecret=s']);
    expect(
      byKind(two, 'PodDisruptionBudget')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['docs-docslurp-server', 'docs-docslurp-worker']);
  });

  it('keeps /ready and /metrics off the Ingress', async () => {
    const objects = await render(['-f', path.join(chart, 'examples', 'production.yaml')]);
    const paths = byKind(objects, 'Ingress')[0]!.spec.rules[0].http.paths;
    const server = byKind(objects, 'Service').find((s) => s.metadata.name === 'docs-docslurp')!;
    const exact = paths.filter(
      (p: { path: string; pathType: string; backend: { service: { name: string } } }) =>
        p.pathType === 'Exact',
    );
    expect(
      exact
        .map((p: { path: string; pathType: string; backend: { service: { name: string } } }) => p.path)
        .sort(),
    ).toEqual(['/metrics', '/ready']);
    const blocked = byKind(objects, 'Service').find(
      (s) => s.metadata.name === exact[0].backend.service.name,
    )!;
    // That Service selects no pod the chart makes.
    const podLabels = objects
      .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
      .map((d) => d.spec.template.metadata.labels as Record<string, string>);
    expect(podLabels.length).toBe(3);
    for (const labels of podLabels)
      expect(Object.entries(blocked.spec.selector).every(([k, v]) => labels[k] === v)).toBe(false);
    expect(
      paths.find(
        (p: { path: string; pathType: string; backend: { service: { name: string } } }) => p.path === '/',
      )!.backend.service.name,
    ).toBe(server.metadata.name);
  });

  it('refuses a setting the service does not have, and needs the secret', async () => {
    expect(await renderFails(['--set', 'existingSecret=s', '--set', 'config.WORKER_CONCURENCY=2'])).toMatch(
      /additional properties 'WORKER_CONCURENCY' not allowed/,
    );
    expect(await renderFails([])).toMatch(/existingSecret is required/);
  });
});

describe('the chart’s settings and the service’s configuration', () => {
  const values = parseYaml(readFileSync(path.join(chart, 'values.yaml'), 'utf8')) as {
    config: Record<string, unknown>;
  };
  const schema = JSON.parse(readFileSync(path.join(chart, 'values.schema.json'), 'utf8'));
  const service = new Set(Object.keys(envSchema.shape));
  // Set by the chart's templates themselves.
  const fixed = [
    'NODE_ENV',
    'DATA_DIR',
    'SERVER_BIND_ADDRESS',
    'SERVER_PORT',
    'WORKER_HTTP_PORT',
    'PARSER_ISOLATION',
  ];
  // What the service reads that a chart has no business setting, and why.
  const notForTheChart: Record<string, string> = {
    PATH: "the image's own",
    CONSOLE_DIR: 'the console is in the image',
    // Only checked (grpc is refused): spans go over OTLP/HTTP whatever it says, so nothing to choose.
    OTEL_EXPORTER_OTLP_PROTOCOL: 'a check of the SDK variable, with no choice to make',
  };

  // The OpenTelemetry SDK's own variables: the SDK reads them from the environment, whether or not
  // config/environment.ts lists them too.
  const openTelemetry = new Set([
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    'OTEL_SERVICE_NAME',
    'OTEL_TRACES_EXPORTER',
    'OTEL_SDK_DISABLED',
  ]);

  it('names only variables the service reads', () => {
    for (const name of [...Object.keys(values.config), ...secretKeys(), ...fixed])
      expect(
        service.has(name) || openTelemetry.has(name),
        `${name} is not in the service's configuration (config/environment.ts)`,
      ).toBe(true);
  });

  it('passes the tracing settings like any other, and sets none by default', () => {
    for (const name of openTelemetry) expect(values.config[name], name).toBe('');
  });

  it('can set every variable the service reads (or says why not)', () => {
    const settable = new Set([...Object.keys(values.config), ...secretKeys(), ...fixed]);
    const missing = [...service].filter((name) => !settable.has(name) && !(name in notForTheChart));
    expect(missing, 'add them to values.yaml (config) or the secret keys in _helpers.tpl').toEqual([]);
  });

  it('lists the same settings in values.yaml and values.schema.json', () => {
    expect(Object.keys(schema.properties.config.properties).sort()).toEqual(
      Object.keys(values.config).sort(),
    );
    expect(schema.properties.config.additionalProperties).toBe(false);
  });
});
