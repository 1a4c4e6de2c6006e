import { writeFileSync } from 'node:fs';
import { Stack } from './harness.js';
import { generateCases, type CaseSpec } from './differential/cases.js';
import { diffCalls, simulateBody } from './differential/compare.js';
import { compile, deploy, type Deployment } from './differential/contracts.js';
import { HARDFORK, HardhatNode } from './differential/node.js';
import { runReference } from './differential/reference.js';

/**
 * Differential test of `POST /v1/simulate` against a real node: every case runs as real
 * transactions on a local hardhat node (one block on top of block N, then reverted) and as a
 * simulation on block N; status, return data, logs, gasUsed and internal transfers must agree.
 *
 * DIFFERENTIAL_REFERENCE_ONLY=1 runs only the node side (with each case's own checks), without
 * the product. DIFFERENTIAL_REPORT=<file> writes every disagreement as JSON.
 */
const REFERENCE_ONLY = process.env.DIFFERENTIAL_REFERENCE_ONLY === '1';
const CASES = generateCases();

describe('POST /v1/simulate agrees with a real node', () => {
  let node: HardhatNode;
  let d: Deployment;
  let stack: Stack | undefined;
  let key = '';
  const report: Array<{ name: string; differences: string[] }> = [];

  beforeAll(async () => {
    node = await HardhatNode.start();
    d = await deploy(node.rpc, compile());
    if (!REFERENCE_ONLY) {
      stack = await Stack.start({ RPC_URL_1: node.url, HARDFORK_1: HARDFORK });
      key = await stack.createKey({ scopes: ['simulate'] });
    }
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await node?.stop();
    if (process.env.DIFFERENTIAL_REPORT) writeFileSync(process.env.DIFFERENTIAL_REPORT, JSON.stringify(report, null, 2));
  });

  it('generates enough cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(200);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name: string, spec: CaseSpec) => {
    const bundle = spec.build(d);

    if (spec.rejects) {
      if (REFERENCE_ONLY) return;
      const res = await stack!.request('POST', '/v1/simulate', { key, body: simulateBody(bundle, d.block, spec.block) });
      const expected = { error: true, name: 'Error', message: spec.rejects(d), details: null };
      if (res.status !== 400 || JSON.stringify(res.body) !== JSON.stringify(expected)) {
        report.push({ name: spec.name, differences: [`response: expected 400 ${JSON.stringify(expected)}, service ${res.status} ${res.text.slice(0, 500)}`] });
      }
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: expected });
      return;
    }

    const reference = await runReference(node.rpc, bundle);
    expect(reference.block).toBe(d.block);
    spec.check?.(reference.calls, d);
    if (REFERENCE_ONLY) return;

    const res = await stack!.request('POST', '/v1/simulate', { key, body: simulateBody(bundle, reference.block, spec.block) });
    const differences: string[] = [];
    if (res.status !== 200) {
      differences.push(`response: service ${res.status} ${res.text.slice(0, 500)}`);
    } else {
      if (res.body.chainId !== 1) differences.push(`chainId: service ${JSON.stringify(res.body.chainId)}`);
      if (BigInt(res.body.blockNumber ?? -1) !== BigInt(reference.block)) differences.push(`blockNumber: node ${reference.block}, service ${JSON.stringify(res.body.blockNumber)}`);
      differences.push(...diffCalls(reference.calls, res.body.calls));
    }
    if (differences.length) report.push({ name: spec.name, differences });
    expect(differences).toEqual([]);
  });
});
