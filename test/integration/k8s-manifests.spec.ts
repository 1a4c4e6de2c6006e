import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { containerPort, dockerImages, dockerTarget, find, OVERLAYS, podSpec, render, ROOT, type K8sObject } from './k8s.js';

/** Kinds that are not Kubernetes' own, checked by hand below. */
const CUSTOM_KINDS = new Set(['postgresql.cnpg.io/v1/Cluster']);

/** The kubernetes-models class of an object (`kubernetes-models/<group>/<version>`), or null for a custom kind. */
async function modelOf(o: K8sObject): Promise<(new (data: object) => { validate(): void }) | null> {
  if (CUSTOM_KINDS.has(`${o.apiVersion}/${o.kind}`)) return null;
  const module = (await import(`kubernetes-models/${o.apiVersion}`)) as Record<string, new (data: object) => { validate(): void }>;
  const model = module[o.kind];
  if (!model) throw new Error(`kubernetes-models has no ${o.apiVersion} ${o.kind}`);
  return model;
}

const id = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
const SERVICES = ['gateway', 'intent-service', 'payout-service', 'simulation-service', 'orderflow-service'];

describe.each(OVERLAYS)('infra/k8s/overlays/%s', (overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(overlay);
  });

  it('renders, and every object validates against the Kubernetes API schemas', async () => {
    expect(objects.length).toBeGreaterThan(15);
    const invalid: string[] = [];
    for (const o of objects) {
      const Model = await modelOf(o);
      if (!Model) continue;
      try {
        new Model(o).validate();
      } catch (err) {
        invalid.push(`${id(o)}: ${(err as Error).message}`);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('runs every image the Dockerfile builds with the command its target runs', () => {
    const images = dockerImages();
    for (const o of objects.filter((x) => ['Deployment', 'StatefulSet', 'Job'].includes(x.kind))) {
      const spec = podSpec(o);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const target = dockerTarget(c.image);
        if (target === null) {
          expect([id(o), c.image]).toEqual([id(o), expect.stringMatching(/^nats:2\.\d+/)]);
          continue;
        }
        const image = images.get(target);
        expect([id(o), target, image !== undefined]).toEqual([id(o), target, true]);
        // The main container runs what the image runs; an init step runs a script of the same image.
        if (spec.containers.includes(c)) expect([id(o), c.command]).toEqual([id(o), image!.cmd]);
        else expect(c.command?.[1] && readFileSync(join(ROOT, c.command[1]), 'utf8').length).toBeGreaterThan(0);
      }
    }
  });
});

describe('the prod overlay', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render('prod');
  });

  it('renders exactly these objects', () => {
    expect(objects.map(id).sort()).toEqual(
      [
        'ConfigMap/nats-config',
        'ConfigMap/tradeinfra-config',
        'Deployment/gateway',
        'Deployment/intent-service',
        'Deployment/orderflow-service',
        'Deployment/payout-service',
        'Deployment/simulation-service',
        'HorizontalPodAutoscaler/gateway',
        'HorizontalPodAutoscaler/simulation-service',
        'Ingress/gateway',
        'Job/tradeinfra-migrate',
        'Namespace/tradeinfra',
        'NetworkPolicy/default-deny-ingress',
        'NetworkPolicy/gateway-from-anywhere',
        'NetworkPolicy/nats-from-services',
        'PodDisruptionBudget/gateway',
        'PodDisruptionBudget/intent-service',
        'PodDisruptionBudget/nats',
        'PodDisruptionBudget/orderflow-service',
        'PodDisruptionBudget/payout-service',
        'PodDisruptionBudget/simulation-service',
        'Service/gateway',
        'Service/nats',
        'StatefulSet/nats',
      ].map((n) => (n.startsWith('ConfigMap/') ? expect.stringMatching(new RegExp(`^${n}-[a-z0-9]{10}$`)) : n)),
    );
  });

  it('runs each service with probes on ports it declares, resources, non-root, secrets by reference, and more than one replica or an autoscaler', () => {
    for (const name of SERVICES) {
      const d = find(objects, 'Deployment', name);
      const spec = podSpec(d);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef.name === name);
      expect([name, Math.max(d.spec.replicas ?? 0, hpa?.spec.minReplicas ?? 0) >= 2]).toEqual([name, true]);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        expect(c.resources?.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
        expect(c.resources?.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
        // A secret is never a literal in a manifest.
        const literalSecrets = (c.env ?? []).filter((v) => /PASSWORD|SECRET|KEY/.test(v.name) && v.value !== undefined);
        expect([name, c.name, literalSecrets]).toEqual([name, c.name, []]);
      }
      const main = spec.containers[0]!;
      expect([name, main.readinessProbe?.httpGet?.path, main.livenessProbe?.httpGet?.path]).toEqual([name, '/ready', '/health']);
      expect(containerPort(main, main.readinessProbe!.httpGet!.port)).toBeGreaterThan(0);
      expect(objects.some((o) => o.kind === 'PodDisruptionBudget' && o.spec.selector.matchLabels['app.kubernetes.io/name'] === name)).toBe(true);
    }
    expect(
      objects
        .filter((o) => o.kind === 'HorizontalPodAutoscaler')
        .map((o) => o.spec.scaleTargetRef.name)
        .sort(),
    ).toEqual(['gateway', 'simulation-service']);
  });

  it('runs NATS as 3 JetStream nodes, and the services with 3 replicas of every stream', () => {
    const nats = find(objects, 'StatefulSet', 'nats');
    expect(nats.spec.replicas).toBe(3);
    expect(podSpec(nats).containers[0]!.args).toEqual(['-c', '/etc/nats/nats.conf', '-sd', '/data/jetstream']);
    expect(nats.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('tradeinfra-config-'))!;
    expect(config.data!.NATS_STREAM_REPLICAS).toBe('3');
    expect(config.data!.NATS_URL.split(',')).toHaveLength(3);
  });

  it('lets only the gateway in from outside, and NATS only from the services', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const denyAll = find(objects, 'NetworkPolicy', 'default-deny-ingress');
    expect(denyAll.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const open = policies.filter((p) => (p.spec.ingress ?? []).some((rule: { from?: unknown[] }) => !rule.from));
    expect(open.map((p) => p.spec.podSelector.matchLabels)).toEqual([{ 'app.kubernetes.io/name': 'gateway' }]);
    const natsClients = find(objects, 'NetworkPolicy', 'nats-from-services').spec.ingress[0];
    expect(natsClients.from).toEqual([{ podSelector: { matchLabels: { 'tradeinfra.io/nats-client': 'true' } } }]);
    const clientsOfNats = objects.filter(
      (o) => o.kind === 'Deployment' && podSpec(o) && o.spec.template.metadata.labels['tradeinfra.io/nats-client'] === 'true',
    );
    expect(clientsOfNats.map((o) => o.metadata.name).sort()).toEqual([...SERVICES].sort());
    // The Ingress reaches the gateway's Service, which reaches the gateway's port.
    const ingress = find(objects, 'Ingress', 'gateway');
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    const service = find(objects, 'Service', backend.name);
    const port = service.spec.ports.find((p: { name: string }) => p.name === backend.port.name);
    expect(containerPort(podSpec(find(objects, 'Deployment', 'gateway')).containers[0]!, port.targetPort)).toBe(8080);
  });

  it('migrates with a Job, and each service with a schema waits for it', () => {
    const job = find(objects, 'Job', 'tradeinfra-migrate');
    expect(podSpec(job).containers[0]!.command).toEqual(['node', 'scripts/migrate.mjs']);
    for (const [name, app] of [
      ['gateway', 'gateway'],
      ['intent-service', 'intent-service'],
      ['payout-service', 'payout-service'],
      ['orderflow-service', 'orderflow-service'],
    ]) {
      expect(podSpec(find(objects, 'Deployment', name!)).initContainers?.map((c) => c.command)).toEqual([['node', 'scripts/migrate.mjs', '--wait', app]]);
    }
  });
});

describe('the CloudNativePG option', () => {
  it('adds a 3-instance Postgres cluster reachable only from the services that use it', () => {
    const objects = render('prod-cloudnative-pg');
    // Not a Kubernetes kind: its own fields, checked here (the operator validates the rest).
    const cluster = find(objects, 'Cluster', 'tradeinfra-db');
    expect(cluster.apiVersion).toBe('postgresql.cnpg.io/v1');
    expect(cluster.spec).toMatchObject({ instances: 3, enableSuperuserAccess: true, storage: { size: expect.any(String) } });
    const policy = find(objects, 'NetworkPolicy', 'postgres-from-services');
    expect(policy.spec.ingress[0].from[0]).toEqual({ podSelector: { matchLabels: { 'tradeinfra.io/postgres-client': 'true' } } });
    const clients = objects.filter(
      (o) => ['Deployment', 'Job'].includes(o.kind) && o.spec.template.metadata.labels['tradeinfra.io/postgres-client'] === 'true',
    );
    expect(clients.map(id).sort()).toEqual([
      'Deployment/gateway',
      'Deployment/intent-service',
      'Deployment/orderflow-service',
      'Deployment/payout-service',
      'Job/tradeinfra-migrate',
    ]);
  });
});

describe('NATS configuration copies', () => {
  const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');
  /** The settings of a config file: no comments, no blank lines, no route entries. */
  const settings = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#') && !l.startsWith('nats-route://'));

  it('ship infra/nats/ to Kubernetes unchanged but for the routes', () => {
    expect(read('infra/k8s/base/nats/auth.conf')).toBe(read('infra/nats/auth.conf'));
    expect(read('infra/k8s/overlays/dev/nats/nats.conf')).toBe(read('infra/nats/nats.conf'));
    expect(settings(read('infra/k8s/base/nats/nats.conf'))).toEqual(settings(read('infra/nats/cluster.conf')));
  });
});
