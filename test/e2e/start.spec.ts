import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, TestNatsServer } from '@tradeinfra/test-support';
import { intentBody } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** `npm start` as a new user runs it, here with no Postgres on its port: it must bring its own. */
describe('npm start', () => {
  let nats: TestNatsServer;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let start: ChildProcess | null = null;
  let output = '';

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    dataDir = mkdtempSync(join(tmpdir(), 'embedded-pg-'));
    env = {
      ...process.env,
      NATS_URL: nats.url,
      PORT: String(await freePort()),
      PGPORT: String(await freePort()),
      EMBEDDED_PG_DIR: dataDir,
      NO_COLOR: '1',
    };
  });
  afterAll(async () => {
    if (start && start.exitCode === null) start.kill('SIGKILL');
    await nats?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * A CLI command, run without blocking this process: `npm start`'s output keeps being read (a
   * full pipe would stall its services) and the HTTP client sees idle connections close.
   */
  const runCli = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(ROOT, 'scripts', 'cli.mjs'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.once('error', reject);
      child.once('close', (status) => resolve({ status, stdout }));
    });

  it('starts an embedded Postgres when none is reachable, serves the API, and stops on Ctrl-C', async () => {
    start = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    start.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    start.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const base = `http://127.0.0.1:${env.PORT}`;
    // Starting builds, initialises a Postgres cluster and starts the services: on a busy 2-core
    // machine that takes as long as it takes. Wait for the gateway to be ready, or for `npm start`
    // to give up (it exits saying why); only the test's own timeout bounds a hang.
    for (;;) {
      if (start.exitCode !== null || start.signalCode !== null) throw new Error(`npm start exited before the gateway was ready:\n${output}`);
      if (
        await fetch(`${base}/ready`).then(
          (r) => r.status === 200,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(output).toContain('starting an embedded one');

    const cli = await runCli(['apikey:create', '--name', 'newcomer', '--tenant', 'acme']);
    expect(cli.status).toBe(0);
    const key = cli.stdout.trim();
    expect(cli.stdout).toMatch(/^ti_[A-Za-z0-9_-]{43}\n$/);

    const created = await fetch(`${base}/v1/intent`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(intentBody()),
    });
    expect(created.status).toBe(201);

    const source = await runCli(['source:create', '--id', 'wallet-app', '--tenant', 'acme']);
    expect(source.stdout).toBe('wallet-app registered to tenant acme\n');
    const cashback = await fetch(`${base}/v1/cashback/source/wallet-app`, { headers: { 'x-api-key': key } });
    expect(cashback.status).toBe(200);

    const exited = new Promise<number | null>((resolve) => start!.once('exit', (code) => resolve(code)));
    start.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    expect(output).toContain('embedded Postgres stopped');
  }, 900_000);

  it('exits at once with a one-line explanation when NATS is unreachable', async () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], {
      cwd: ROOT,
      env: { ...env, NATS_URL: `nats://127.0.0.1:${await freePort()}` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/NATS is not reachable at nats:\/\/127\.0\.0\.1:\d+: start one with JetStream/);
  });

  it('takes a comma-separated cluster list, and stops at once when NATS refuses the credentials', async () => {
    const dead = [`nats://127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`].join(',');
    const none = spawnSync(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], {
      cwd: ROOT,
      env: { ...env, NATS_URL: dead },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(none.status).toBe(1);
    expect(none.stderr).toContain(`NATS is not reachable at ${dead}: start one`);

    // A server with users (infra/nats/nats.conf as shipped), and a wrong password.
    const secured = await TestNatsServer.start({
      config: join(ROOT, 'infra', 'nats', 'nats.conf'),
      env: Object.fromEntries(
        ['GATEWAY', 'INTENT', 'PAYOUT', 'SIMULATION', 'ORDERFLOW', 'MEV_CAPTURE'].map((u) => [`NATS_${u}_PASSWORD`, `p${u.replace('_', '')}0123456789abcdef`]),
      ),
    });
    try {
      const refused = spawnSync(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], {
        cwd: ROOT,
        env: { ...env, NATS_URL: secured.url, NATS_USER: 'gateway', NATS_PASSWORD: 'pWrongPassword0123456' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/refused the connection \(Authorization Violation\): check NATS_USER, NATS_PASSWORD/);
    } finally {
      await secured.dispose();
    }
  });
});
