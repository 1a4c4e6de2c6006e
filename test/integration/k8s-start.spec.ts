import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, TestDatabase, TestNatsCluster } from '@tradeinfra/test-support';
import { parseAllDocuments } from 'yaml';
import { intentBody } from '../e2e/harness.js';
import {
  containerEnv,
  containerPort,
  dockerImages,
  dockerTarget,
  find,
  podSpec,
  render,
  ROOT,
  type Container,
  type K8sObject,
  type Resolution,
} from './k8s.js';

const POSTGRES_HOST = 'postgres.tradeinfra.test';

/** A container started as its pod would start it: the image's ENV, then the container's env; its command in the image's WORKDIR (this checkout). */
function startContainer(c: Container, env: Record<string, string>, log: string[]): ChildProcess {
  const target = dockerTarget(c.image);
  if (!target) throw new Error(`${c.name}: ${c.image} is not built by the Dockerfile`);
  const image = dockerImages().get(target)!;
  const [command, ...args] = [...(c.command ?? image.cmd ?? []), ...(c.args ?? [])];
  if (command !== 'node') throw new Error(`${c.name}: runs ${command}, not node`);
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...image.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => log.push(`[${c.name}] ${chunk.toString().trimEnd()}`));
  return child;
}

function exited(child: ChildProcess, what: string, log: string[], timeoutMs = 90_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not finish in ${timeoutMs} ms:\n${log.join('\n')}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${what} exited with ${code}:\n${log.slice(-40).join('\n')}`));
    });
  });
}

/**
 * The rendered prod manifests start the product: their ConfigMaps and the Secrets of a fixture,
 * service hostnames mapped to local addresses, the migration Job, then every Deployment's init
 * containers and container with exactly its command and env, against a local 3-node NATS
 * cluster running the rendered NATS configuration and this machine's Postgres; every readiness
 * probe must answer, and an intent must be created through the gateway.
 */
describe('the prod manifests start the suite', () => {
  const log: string[] = [];
  const processes: ChildProcess[] = [];
  let objects: K8sObject[];
  let cluster: TestNatsCluster;
  let db: TestDatabase;
  let dir: string;
  let resolution: Resolution;
  /** Local address of each service hostname (and host:port) the manifests name. */
  let addresses: [RegExp, string][] = [];

  const local = (value: string) => addresses.reduce((v, [from, to]) => v.replace(from, to), value);
  const envOf = (c: Container, fields: Record<string, string> = {}) =>
    Object.fromEntries(Object.entries(containerEnv(c, { ...resolution, fields })).map(([k, v]) => [k, local(v)]));

  beforeAll(async () => {
    objects = render('prod');
    dir = mkdtempSync(join(tmpdir(), 'k8s-start-'));
    // Secrets from the fixture; this run's own database (dropped after).
    const secrets = Object.fromEntries(
      parseAllDocuments(readFileSync(join(import.meta.dirname, 'fixtures', 'k8s-secrets.yaml'), 'utf8')).map((d) => {
        const s = d.toJS() as { metadata: { name: string }; stringData: Record<string, string> };
        return [s.metadata.name, { ...s.stringData }];
      }),
    ) as Record<string, Record<string, string>>;
    db = await TestDatabase.create('k8s');
    secrets['tradeinfra-postgres']!.database = db.name;
    const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
    resolution = { secrets, configMaps };

    // NATS: the StatefulSet's configuration (its ConfigMap at its mount path) and env, 3 nodes here.
    const nats = find(objects, 'StatefulSet', 'nats');
    const natsSpec = podSpec(nats);
    const mount = (natsSpec.containers[0] as Container & { volumeMounts: { name: string; mountPath: string }[] }).volumeMounts.find(
      (m) => m.name === 'config',
    )!;
    const volume = (natsSpec.volumes as { name: string; configMap: { name: string } }[]).find((v) => v.name === 'config')!;
    for (const [file, text] of Object.entries(configMaps.get(volume.configMap.name)!)) writeFileSync(join(dir, file), text);
    const natsArgs = natsSpec.containers[0]!.args!;
    expect(natsArgs.slice(0, 2)).toEqual(['-c', `${mount.mountPath}/nats.conf`]);
    cluster = await TestNatsCluster.start({
      size: nats.spec.replicas,
      config: join(dir, 'nats.conf'),
      env: envOf(natsSpec.containers[0]!, { 'metadata.name': 'nats-0' }),
      admin: { user: 'intent', pass: secrets['tradeinfra-nats']!.intent! },
    });
    addresses = [
      ...Array.from(
        { length: cluster.size },
        (_, i) => [new RegExp(`\\bnats-${i}\\.nats:4222\\b`, 'g'), cluster.nodeUrl(i).slice('nats://'.length)] as [RegExp, string],
      ),
      [new RegExp(`^${POSTGRES_HOST.replace(/\./g, '\\.')}$`), '127.0.0.1'],
    ];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(
      processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode !== null) return resolve();
            p.once('exit', () => resolve());
            p.kill('SIGTERM');
            setTimeout(() => p.kill('SIGKILL'), 5_000).unref();
          }),
      ),
    );
    await cluster?.dispose();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrates, passes every readiness probe, and creates an intent through the gateway', async () => {
    const job = podSpec(find(objects, 'Job', 'tradeinfra-migrate')).containers[0]!;
    const migrate = startContainer(job, envOf(job), log);
    processes.push(migrate);
    await exited(migrate, 'the migration Job', log);

    const deployments = objects.filter((o) => o.kind === 'Deployment');
    expect(deployments).toHaveLength(5);
    const probes = await Promise.all(
      deployments.map(async (d) => {
        const spec = podSpec(d);
        for (const init of spec.initContainers ?? []) {
          const child = startContainer(init, envOf(init), log);
          processes.push(child);
          await exited(child, `${d.metadata.name}'s ${init.name}`, log);
        }
        const main = spec.containers[0]!;
        const child = startContainer(main, envOf(main), log);
        processes.push(child);
        child.once('exit', (code) => log.push(`[${main.name}] exited with ${code}`));
        const probe = main.readinessProbe!.httpGet!;
        return { name: d.metadata.name, url: `http://127.0.0.1:${containerPort(main, probe.port)}${probe.path}`, child, env: envOf(main) };
      }),
    );
    for (const p of probes) {
      await eventually(
        `${p.name} ready at ${p.url}`,
        async () => {
          if (p.child.exitCode !== null) throw new Error(`${p.name} exited:\n${log.slice(-30).join('\n')}`);
          return (
            (await fetch(p.url).then(
              (r) => r.status,
              () => 0,
            )) === 200
          );
        },
        60_000,
        250,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${log.slice(-30).join('\n')}`);
      });
    }

    // An operator's first key, made with the gateway's own command and env (kubectl exec).
    const gateway = probes.find((p) => p.name === 'gateway')!;
    const keyLog: string[] = [];
    const cli = spawn(process.execPath, ['apps/gateway/dist/cli/apikey.js', 'create', '--name', 'k8s-test'], {
      cwd: ROOT,
      env: gateway.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let key = '';
    cli.stdout!.on('data', (c: Buffer) => (key += c.toString()));
    cli.stderr!.on('data', (c: Buffer) => keyLog.push(c.toString()));
    await exited(cli, 'apikey create', keyLog);

    const base = gateway.url.replace(/\/ready$/, '');
    const created = await fetch(`${base}/v1/intent`, {
      method: 'POST',
      headers: { 'x-api-key': key.trim(), 'content-type': 'application/json' },
      body: JSON.stringify(intentBody()),
    });
    expect([created.status, await created.text()]).toEqual([201, expect.stringContaining('"status":"pending"')]);

    // Every service answers the gateway over NATS as its own identity (a missing permission is a timeout here).
    const services = (await (await fetch(`${base}/health/services`)).json()) as { services: Record<string, { state: string }> };
    expect(Object.fromEntries(Object.entries(services.services).map(([name, s]) => [name, s.state]))).toEqual({
      'intent-service': 'up',
      'simulation-service': 'up',
      'payout-service': 'up',
      'orderflow-service': 'up',
    });

    // Its event is in INTENT_EVENTS, replicated on all three nodes as the manifests ask.
    const events = await eventually(
      'the created event in INTENT_EVENTS',
      async () => {
        const info = await cluster.streamInfo('INTENT_EVENTS');
        return info.messages === 1 ? info : undefined;
      },
      20_000,
      200,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${log.slice(-30).join('\n')}`);
    });
    expect(events.replicas).toBe(3);
    expect(events.peers.map((p) => p.current)).toEqual([true, true]);
  }, 120_000);
});
