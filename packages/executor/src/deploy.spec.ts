import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { devWallet, HardhatNode, LocalDex } from '@tradeinfra/test-support';
import { getAddress } from 'ethers';
import { executorArtifact } from './artifact.js';

/**
 * The deploy command as an operator runs it (`npm run -s executor:deploy -- …` runs this same
 * built file after building): against a hardhat node with WETH9 and the Uniswap V2 router.
 */
const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'deploy.js');
/** Each test starts the command up to four times (a Node process loading ethers each time). */
const TIMEOUT = 120_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function deployCli(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, ...env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('executor:deploy', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  const deployer = devWallet(7);
  const key = deployer.privateKey;
  const nonce = async () => BigInt(await node.rpc.call<string>('eth_getTransactionCount', [deployer.address, 'latest']));

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    dex = await LocalDex.deploy(node);
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
  });

  it(
    'deploys with the key from EXECUTOR_DEPLOYER_KEY and prints only the address',
    async () => {
      const run = await deployCli(['--rpc', node.url, '--router', dex.router], { EXECUTOR_DEPLOYER_KEY: key });
      expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/^0x[0-9a-fA-F]{40}\n$/) });
      const address = run.stdout.trim();
      expect(address).toBe(getAddress(address));
      expect(run.stderr).toContain(`set EXECUTOR_31337=${address}`);
      expect(run.stdout + run.stderr).not.toContain(key.slice(2));

      const { iface, deployedBytecode } = executorArtifact();
      const code = await node.rpc.call<string>('eth_getCode', [address, 'latest']);
      expect(code.length).toBe(deployedBytecode.length); // the built contract (immutables filled in)
      const read = async (name: string) =>
        (
          iface.decodeFunctionResult(
            name,
            await node.rpc.call<string>('eth_call', [{ to: address, data: iface.encodeFunctionData(name) }, 'latest']),
          )[0] as string
        ).toLowerCase();
      expect([await read('router'), await read('factory'), await read('wrappedNative')]).toEqual([dex.router, dex.factory, dex.weth]);
    },
    TIMEOUT,
  );

  it(
    'accepts the router’s own WETH and refuses another, sending nothing',
    async () => {
      const ok = await deployCli(['--rpc', node.url, '--router', dex.router, '--weth', dex.weth], { EXECUTOR_DEPLOYER_KEY: key });
      expect(ok.code).toBe(0);
      const before = await nonce();
      const wrong = await deployCli(['--rpc', node.url, '--router', dex.router, '--weth', dex.factory], { EXECUTOR_DEPLOYER_KEY: key });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain(`the router's WETH() is ${getAddress(dex.weth)}, not ${getAddress(dex.factory)}`);
      expect(await nonce()).toBe(before);
    },
    TIMEOUT,
  );

  it(
    'refuses to run without a key, with a malformed key, or with the key as a flag, and never prints it',
    async () => {
      const none = await deployCli(['--rpc', node.url, '--router', dex.router], { EXECUTOR_DEPLOYER_KEY: undefined });
      expect(none.code).toBe(64);
      expect(none.stderr).toContain('EXECUTOR_DEPLOYER_KEY is not set');
      expect(none.stdout).toBe('');

      const malformed = `${key}00`;
      const bad = await deployCli(['--rpc', node.url, '--router', dex.router], { EXECUTOR_DEPLOYER_KEY: malformed });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('not a 0x-prefixed 32-byte hex private key');
      expect(bad.stderr).not.toContain(key.slice(2));

      const flag = await deployCli(['--rpc', node.url, '--router', dex.router, '--key', key], { EXECUTOR_DEPLOYER_KEY: undefined });
      expect(flag.code).toBe(64);
      expect(flag.stderr).toContain("Unknown option '--key'");
    },
    TIMEOUT,
  );

  it(
    'refuses a router that is not a contract, and a node that does not answer',
    async () => {
      const eoa = devWallet(8).address;
      const notRouter = await deployCli(['--rpc', node.url, '--router', eoa], { EXECUTOR_DEPLOYER_KEY: key });
      expect(notRouter.code).toBe(1);
      expect(notRouter.stderr).toContain(`no contract at router ${eoa} on chain 31337`);

      const noRouterFn = await deployCli(['--rpc', node.url, '--router', dex.weth], { EXECUTOR_DEPLOYER_KEY: key });
      expect(noRouterFn.code).toBe(1);
      expect(noRouterFn.stderr).toContain('has no factory(): not a Uniswap-V2-style router');

      const down = await deployCli(['--rpc', 'http://127.0.0.1:9', '--router', dex.router], { EXECUTOR_DEPLOYER_KEY: key });
      expect(down.code).toBe(1);
      expect(down.stderr).toContain('did not answer eth_chainId');

      const usage = await deployCli(['--rpc', node.url], { EXECUTOR_DEPLOYER_KEY: key });
      expect(usage.code).toBe(64);
      expect(usage.stderr).toContain('--router is required');
    },
    TIMEOUT,
  );
});
