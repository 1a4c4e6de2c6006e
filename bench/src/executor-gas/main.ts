// Executor gas benchmark: `npm run bench:executor-gas` (which installs and builds first).
//
// The gas of one buy through the IntentExecutor contract (`execute` of a pre-signed wallet
// intent, sent by a relayer) against today's buy transaction (the contract creation built by
// apps/intent-service's `buyInitCode`, sent from the wallet itself), on the same pool in the same
// state: each scenario takes an `evm_snapshot`, mines today's buy, reverts to the snapshot, and
// mines the executor's buy. Both buy the same token for the same `buyAmount`, pay the same fee
// (1 %) to an existing account and the same bribe to the block's coinbase (an existing account,
// as a real builder's is), and enforce the same `amountOutMin`/`minOut`.
//
// A local hardhat@2 node (chain id 31337, Prague, base fee 0, no automine) with WETH9 and the
// Uniswap V2 factory and router02 from npm, a plain ERC20 (v2-core's), and the executor from
// packages/executor. Gas is deterministic: one run per scenario. Prints a table on stdout and
// writes bench/results/executor-gas.json. See bench/README.md.
import { join } from 'node:path';
import { executorArtifact } from '@tradeinfra/executor';
import { BenchRun, envInt, hostInfo, log, packageVersion, resultsPath, type Figures } from '../harness/index.js';
import { CHAIN_ID, ETH, GasChain, NETWORK, SUPPLY } from './chain.js';
import { GasSetup, type PathFigures } from './setup.js';

interface Scenario {
  name: string;
  description: string;
  today: PathFigures;
  executor: PathFigures;
  difference: number;
  ratio: number;
}

const run = new BenchRun({
  name: 'executor-gas',
  env: process.env,
  maxSeconds: envInt('BENCH_MAX_SECONDS', 600, { max: 24 * 3600 }),
  applicationName: 'bench',
});

async function scenarios(s: GasSetup): Promise<Scenario[]> {
  const { chain, deployer, trader, wallet } = s;
  const out: Scenario[] = [];
  const record = (name: string, description: string, m: Record<'today' | 'executor', PathFigures>) => {
    const diff = m.executor.gasUsed - m.today.gasUsed;
    out.push({
      name,
      description,
      today: m.today,
      executor: m.executor,
      difference: diff,
      ratio: Math.round((m.executor.gasUsed / m.today.gasUsed) * 1000) / 1000,
    });
    log(`  ${name}: today ${m.today.gasUsed}, executor ${m.executor.gasUsed} (${diff >= 0 ? '+' : ''}${diff})`);
  };
  // 1. The launch block: the launch, then the buy, in one block; firstOrFail on both.
  {
    const tok = await s.token();
    const next = (await chain.latest()).number + 1n;
    const launch = { from: deployer.address, to: s.router, data: await s.launchData(tok), value: 10n * ETH };
    // The pool after the launch (what the launch mints), to price minOut before it exists.
    const pool = { weth: 10n * ETH, token: SUPPLY / 10n };
    record(
      'launch block, firstOrFail',
      'the launch (addLiquidityETH) and the buy in one block; today: pinned to that block number (a launch seen in a mined block); executor: firstOrFail (pool reserves, cumulative prices, last update)',
      await s.compare(await s.buys(tok, { firstOrFail: true, onlyInBlock: next, pool }), [launch]),
    );
  }
  // 1b. The same, today's buy as sent behind a launch seen pending: it checks the pair as the executor does.
  {
    const tok = await s.token();
    const launch = { from: deployer.address, to: s.router, data: await s.launchData(tok), value: 10n * ETH };
    const pool = { weth: 10n * ETH, token: SUPPLY / 10n };
    record(
      'launch block, firstOrFail, behind a pending launch',
      "the launch and the buy in one block; today: the pair's launch-block check (cumulative prices, last update); executor: firstOrFail",
      await s.compare(await s.buys(tok, { firstOrFail: true, onlyInLaunchBlockOf: s.pairAddress(tok), pool }), [launch]),
    );
  }
  // 2. A pool launched and traded in earlier blocks (its cumulative prices running).
  const traded = await s.token();
  await chain.mined(deployer.address, s.router, await s.launchData(traded), 10n * ETH);
  const swap = s.routerArt.iface.encodeFunctionData('swapExactETHForTokensSupportingFeeOnTransferTokens', [
    0,
    [s.weth, traded],
    trader.address,
    (await chain.latest()).timestamp + 3600n,
  ]);
  await chain.mined(trader.address, s.router, swap, ETH / 10n);
  record(
    'later block',
    "a pool launched and traded in earlier blocks; fee 1 %, bribe 0.01 ETH; the wallet's first executor nonce in its bitmap word",
    await s.compare(await s.buys(traded)),
  );
  // 3. The same, the wallet's bitmap word already in use (every intent but one in 256).
  {
    const snapshot = await chain.rpc<string>('evm_snapshot');
    const first = await s.buys(traded, { intentNonce: 1000n });
    await chain.mined(first.executor.from, first.executor.to, first.executor.data);
    record(
      'later block, nonce word in use',
      'as above after an earlier executed intent of the wallet in the same nonce word (nonces 1000 and 1001)',
      await s.compare(await s.buys(traded, { intentNonce: 1001n })),
    );
    await chain.rpc('evm_revert', [snapshot]);
  }
  // 4. No fee and no bribe.
  record(
    'later block, no fee, no bribe',
    'as "later block" with feeBps 0 and bribe 0 (nothing unwrapped or paid besides the swap)',
    await s.compare(await s.buys(traded, { feeBps: 0, bribe: 0n })),
  );
  // 5. The wallet approved exactly amount + bribe (WETH9 then decrements the allowance).
  {
    const snapshot = await chain.rpc<string>('evm_snapshot');
    await chain.mined(wallet.address, s.weth, s.weth9.iface.encodeFunctionData('approve', [s.executor, ETH / 10n + ETH / 100n]));
    record(
      'later block, exact allowance',
      'as "later block" with the wallet\'s allowance exactly amount + bribe instead of unlimited',
      await s.compare(await s.buys(traded)),
    );
    await chain.rpc('evm_revert', [snapshot]);
  }
  return out;
}

async function measure(): Promise<Figures> {
  log('starting hardhat node (chain 31337, Prague, base fee 0, no automine)');
  const chain = await GasChain.start(run.children, join(run.tmp, 'hardhat'));
  const setup = new GasSetup(chain);
  log('deploying WETH9, UniswapV2Factory, UniswapV2Router02, IntentExecutor');
  await setup.deploy();
  log('measuring');
  const measured = await scenarios(setup);
  const { solcVersion, settings, deployedBytecode } = executorArtifact();
  const gas = (r: { gasUsed: string }) => Number(BigInt(r.gasUsed));
  return {
    benchmark: 'executor-gas',
    createdAt: new Date().toISOString(),
    machine: { ...hostInfo(), node: process.version, hardhat: packageVersion('hardhat'), hardfork: NETWORK.hardfork },
    parameters: {
      chainId: CHAIN_ID,
      buyAmountWei: (ETH / 10n).toString(),
      bribeWei: (ETH / 100n).toString(),
      feeBps: 100,
      pool: { nativeWei: (10n * ETH).toString(), tokens: (SUPPLY / 10n).toString() },
      walletAllowance: 'unlimited (WETH9 does not decrement it) unless stated',
      gasPrice: 0,
      note: "gasUsed from each buy's receipt (intrinsic and calldata gas included, refunds applied); both paths from the same snapshot",
    },
    executor: { solcVersion, settings, runtimeBytes: (deployedBytecode.length - 2) / 2, deploymentGas: gas(setup.deployment) },
    oneOff: {
      description: "the wallet's setup for the executor path, once per wallet (today's path has none); the executor's deployment, once per chain",
      wrapWethGas: gas(setup.wrap),
      approveExecutorGas: gas(setup.approveMax),
      deployExecutorGas: gas(setup.deployment),
    },
    scenarios: measured,
  };
}

function table(result: Figures): string {
  const rows: Array<Array<string | number>> = [
    ['scenario', 'today (gas)', 'executor (gas)', 'difference', 'ratio'],
    ...(result.scenarios as Scenario[]).map((s) => [
      s.name,
      s.today.gasUsed,
      s.executor.gasUsed,
      `${s.difference >= 0 ? '+' : ''}${s.difference}`,
      `${s.ratio}×`,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r: Array<string | number>) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');
  const o = result.oneOff as Record<string, number>;
  return [
    line(rows[0]!),
    ...rows.slice(1).map(line),
    '',
    `one-off: executor deployment ${o.deployExecutorGas} gas per chain; per wallet: wrap ${o.wrapWethGas} + approve ${o.approveExecutorGas} gas`,
  ].join('\n');
}

await run.complete(async () => {
  const result = await measure();
  return { path: resultsPath('executor-gas'), json: result, text: table(result), errors: 0, targetsMet: true };
});
