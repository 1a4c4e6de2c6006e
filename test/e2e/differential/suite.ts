import { writeFileSync } from 'node:fs';
import { toBeHex } from 'ethers';
import { Stack } from '../harness.js';
import { generateCases, type CaseSpec } from './cases.js';
import { diffCalls, simulateBody } from './compare.js';
import { compile, deploy, type Deployment } from './contracts.js';
import { HardhatNode } from './node.js';
import { runReference, type Candidates, type GasMode } from './reference.js';

/** Ethereum mainnet's block gas limit (the differential nodes use it: the default call gas depends on it). */
export const MAINNET_BLOCK_GAS_LIMIT = 60_000_000;
/** Roughly mainnet's head at the time of writing: the osaka node's blocks are numbered like it. */
const MAINNET_LIKE_HEAD = 24_100_000;

export type DifferentialFork = 'osaka' | 'prague';

/**
 * Differential test of `POST /v1/simulate` against a real node (hardhat, EDR inside), on one
 * fork: every case runs as real transactions on the node (one block per call on top of block N,
 * then reverted) and as a simulation on block N; status, return data, logs, gasUsed, internal
 * transfers, `addressCreated` and `updated` (the state each call changed, against the node's
 * state before and after its block) must agree. Every case runs with each call's gas, and on
 * Osaka once more without any (the service's default gas, the fork's cap).
 *
 * - osaka: chain id 1 like mainnet today: block numbers around 24.1M, timestamps after the
 *   Osaka fork (2025-12-03); the service picks the fork from mainnet's schedule by itself.
 * - prague: the service is told the fork (HARDFORK_1=prague), as an operator would.
 *
 * DIFFERENTIAL_REFERENCE_ONLY=1 runs only the node side (with each case's own checks), without
 * the product. DIFFERENTIAL_REPORT=<file> writes every disagreement as JSON.
 */
export function differentialSuite(fork: DifferentialFork): void {
  const REFERENCE_ONLY = process.env.DIFFERENTIAL_REFERENCE_ONLY === '1';
  const CASES = generateCases();
  // Each case with its own gas on both forks; with none (the service's default call gas) on
  // Osaka, where that default is EIP-7825's cap and not the block gas limit. (Prague's default
  // run repeated Osaka's on another number, for ~3 of CI's 20 minutes of worker time.)
  const MODES: GasMode[] = fork === 'osaka' ? ['default', 'explicit'] : ['explicit'];
  /** The service's default call gas on this fork: the block gas limit, capped by EIP-7825 since Osaka. */
  const DEFAULT_CALL_GAS = fork === 'osaka' ? 1n << 24n : BigInt(MAINNET_BLOCK_GAS_LIMIT);

  describe(`POST /v1/simulate agrees with a real node (${fork})`, () => {
    let node: HardhatNode;
    let d: Deployment;
    let stack: Stack | undefined;
    let key = '';
    const report: Array<{ name: string; differences: string[] }> = [];

    beforeAll(async () => {
      node = await HardhatNode.start({
        hardfork: fork,
        blockGasLimit: MAINNET_BLOCK_GAS_LIMIT,
        // After BPO2 (2026-01-07): 24M one-second blocks later it is autumn 2026.
        ...(fork === 'osaka' ? { initialDate: '2026-01-10T00:00:00Z' } : {}),
      });
      if (fork === 'osaka') {
        const head = Number(await node.rpc.call<string>('eth_blockNumber'));
        await node.rpc.call('hardhat_mine', [toBeHex(MAINNET_LIKE_HEAD - 200 - head), '0x1']);
      }
      d = await deploy(node.rpc, compile());
      if (!REFERENCE_ONLY) {
        stack = await Stack.start({ RPC_URL_1: node.url, ...(fork === 'prague' ? { HARDFORK_1: 'prague' } : {}) });
        key = await stack.createKey({ scopes: ['simulate'] });
      }
    }, 180_000);

    afterAll(async () => {
      await stack?.close();
      await node?.stop();
      if (process.env.DIFFERENTIAL_REPORT) writeFileSync(`${process.env.DIFFERENTIAL_REPORT}.${fork}.json`, JSON.stringify(report, null, 2));
    });

    it('generates enough cases, on a mainnet-like chain', async () => {
      expect(CASES.length).toBeGreaterThanOrEqual(200);
      expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
      if (fork === 'osaka') {
        expect(d.block).toBeGreaterThan(24_000_000);
        expect(d.timestamp).toBeGreaterThan(Date.parse('2025-12-03T21:49:11Z') / 1000);
      }
    });

    const runs = CASES.flatMap((c) => MODES.map((mode) => [`${c.name} [${mode} gas]`, c, mode] as const));
    it.each(runs)('%s', async (name: string, spec: CaseSpec, mode: GasMode) => {
      const bundle = spec.build(d);

      if (spec.rejects) {
        if (REFERENCE_ONLY) return;
        const res = await stack!.request('POST', '/v1/simulate', { key, body: simulateBody(bundle, d.block, spec.block, mode) });
        const expected = { error: true, name: 'Error', message: spec.rejects(d), details: null };
        if (res.status !== 400 || JSON.stringify(res.body) !== JSON.stringify(expected)) {
          report.push({ name, differences: [`response: expected 400 ${JSON.stringify(expected)}, service ${res.status} ${res.text.slice(0, 500)}`] });
        }
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: expected });
        return;
      }

      // The service first (it reads block N, or latest = N, before the node mines anything);
      // what it says each call changed is checked against the node along with the rest.
      const res = REFERENCE_ONLY ? null : await stack!.request('POST', '/v1/simulate', { key, body: simulateBody(bundle, d.block, spec.block, mode) });
      const candidates = (i: number): Candidates => {
        const updated = res?.body?.calls?.[i]?.updated ?? {};
        const accounts = new Set<string>();
        const slots = new Set<string>();
        for (const section of ['accounts', 'contractCodes', 'storage'] as const)
          for (const a of Object.keys(updated[section] ?? {})) accounts.add(a.toLowerCase());
        for (const [a, s] of Object.entries<Record<string, string>>(updated.storage ?? {}))
          for (const slot of Object.keys(s)) slots.add(`${a.toLowerCase()}:${slot.toLowerCase()}`);
        return { accounts, slots };
      };
      const reference = await runReference(node.rpc, bundle, { defaultGas: DEFAULT_CALL_GAS, gasMode: mode, candidates });
      expect(reference.block).toBe(d.block);
      // The cases' own checks describe them with their own gas.
      if (mode === 'explicit') spec.check?.(reference.calls, d);
      if (REFERENCE_ONLY) return;

      const differences: string[] = [];
      if (res!.status !== 200) {
        differences.push(`response: service ${res!.status} ${res!.text.slice(0, 500)}`);
      } else {
        if (res!.body.chainId !== 1) differences.push(`chainId: service ${JSON.stringify(res!.body.chainId)}`);
        if (BigInt(res!.body.blockNumber ?? -1) !== BigInt(reference.block))
          differences.push(`blockNumber: node ${reference.block}, service ${JSON.stringify(res!.body.blockNumber)}`);
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(String(res!.body.id)))
          differences.push(`id: not a UUID: ${JSON.stringify(res!.body.id)}`);
        differences.push(...diffCalls(reference.calls, res!.body.calls));
      }
      if (differences.length) report.push({ name, differences });
      expect(differences).toEqual([]);
    });
  });
}
