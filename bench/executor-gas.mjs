#!/usr/bin/env node
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
// packages/executor/dist. Gas is deterministic: one run per scenario. Prints a table on stdout
// and writes bench/results/executor-gas.json. See bench/README.md.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HDNodeWallet, Interface, MaxUint256 } from 'ethers';
import { Children, hostInfo, jsonRpc, log, packageVersion, startHardhatNode } from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results', 'executor-gas.json');
const MNEMONIC = 'test test test test test test test test test test test junk';
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;
const COINBASE = '0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e';
const FEE_RECIPIENT = '0xfee0000000000000000000000000000000000fee';

const { buyInitCode } = await import(join(ROOT, 'apps/intent-service/dist/execution/buy.js'));
const executorPkg = await import(join(ROOT, 'packages/executor/dist/index.js'));
const { encodeExecute, executorArtifact, executorDeployData, signBuyIntent, buyIntentFee } = executorPkg;

const hex = (n) => `0x${BigInt(n).toString(16)}`;
const account = (i) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);

function artifact(path) {
  const json = JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8'));
  return { iface: new Interface(json.abi), bytecode: json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}` };
}

async function main() {
  const tmp = mkdtempSync(join(os.tmpdir(), 'bench-executor-gas-'));
  const children = new Children(tmp);
  const stop = async () => {
    await children.stopAll().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => void stop().then(() => process.exit(130)));
  }
  try {
    const result = await measure(children, tmp);
    mkdirSync(dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${table(result)}\nresults: ${relative(process.cwd(), RESULTS) || RESULTS}\n`);
  } finally {
    await stop();
  }
}

async function measure(children, tmp) {
  log('starting hardhat node (chain 31337, Prague, base fee 0, no automine)');
  const network = {
    chainId: CHAIN_ID,
    hardfork: 'prague',
    initialBaseFeePerGas: 0,
    allowBlocksWithSameTimestamp: true,
    mining: { auto: false, interval: 0, mempool: { order: 'fifo' } },
    accounts: { mnemonic: MNEMONIC, count: 10 },
  };
  const node = await startHardhatNode({ root: ROOT, children, dir: join(tmp, 'hardhat'), network });
  const rpc = (method, params = []) => jsonRpc(node.url, method, params);

  /** Sends from an unlocked account (gas price 0), mines unless `hold`, returns the hash. */
  const send = async (from, to, data, value = 0n) =>
    rpc('eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, value: hex(value), gas: hex(10_000_000), maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' }]);
  const receipt = (hash) => rpc('eth_getTransactionReceipt', [hash]);
  const mined = async (from, to, data, value = 0n) => {
    const hash = await send(from, to, data, value);
    await rpc('evm_mine');
    const r = await receipt(hash);
    if (r?.status !== '0x1') throw new Error(`setup transaction ${hash} failed`);
    return r;
  };
  const latest = async () => {
    const b = await rpc('eth_getBlockByNumber', ['latest', false]);
    return { number: BigInt(b.number), timestamp: BigInt(b.timestamp) };
  };

  const [deployer, wallet, relayer, trader] = [0, 1, 2, 3].map(account);
  const weth9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
  const factoryArt = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
  const routerArt = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
  const pairArt = artifact('@uniswap/v2-core/build/UniswapV2Pair.json');
  const erc20 = artifact('@uniswap/v2-core/build/ERC20.json');
  const create = async (art, args) => (await mined(deployer.address, null, art.bytecode + art.iface.encodeDeploy(args).slice(2))).contractAddress;

  log('deploying WETH9, UniswapV2Factory, UniswapV2Router02, IntentExecutor');
  const weth = await create(weth9, []);
  const factory = await create(factoryArt, [deployer.address]);
  const router = await create(routerArt, [factory, weth]);
  const deployment = await mined(deployer.address, null, executorDeployData(router, weth));
  const executor = deployment.contractAddress;
  const target = { chainId: CHAIN_ID, executor };

  // The coinbase and the fee recipient exist (a real builder's coinbase does): paying them is
  // not an account creation in either path.
  await rpc('hardhat_setCoinbase', [COINBASE]);
  await rpc('hardhat_setBalance', [COINBASE, hex(1n)]);
  await rpc('hardhat_setBalance', [FEE_RECIPIENT, hex(1n)]);

  // The wallet's one-off setup for the executor path: wrap, approve (today's path needs neither).
  const wrap = await mined(wallet.address, weth, weth9.iface.encodeFunctionData('deposit'), 50n * ETH);
  const approveMax = await mined(wallet.address, weth, weth9.iface.encodeFunctionData('approve', [executor, MaxUint256]));

  const token = async () => {
    const address = await create(erc20, [SUPPLY]);
    await mined(deployer.address, address, erc20.iface.encodeFunctionData('approve', [router, MaxUint256]));
    return address;
  };
  const launchData = async (tok) =>
    routerArt.iface.encodeFunctionData('addLiquidityETH', [tok, SUPPLY / 10n, 0, 0, deployer.address, (await latest()).timestamp + 3600n]);
  const reserves = async (tok) => {
    const pair = factoryArt.iface.decodeFunctionResult('getPair', await rpc('eth_call', [{ to: factory, data: factoryArt.iface.encodeFunctionData('getPair', [tok, weth]) }, 'latest']))[0];
    const [r0, r1] = pairArt.iface.decodeFunctionResult('getReserves', await rpc('eth_call', [{ to: pair, data: pairArt.iface.encodeFunctionData('getReserves') }, 'latest']));
    return BigInt(weth) < BigInt(tok) ? { weth: r0, token: r1 } : { weth: r1, token: r0 };
  };
  const quote = (amountIn, rIn, rOut) => (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n);

  let nonce = 1n;
  /** The same buy both ways: today's init code and the executor's intent. */
  const buys = async (tok, { amount = ETH / 10n, bribe = ETH / 100n, feeBps = 100, firstOrFail = false, onlyInBlock = null, pool = null, intentNonce = nonce++ } = {}) => {
    const fee = buyIntentFee(amount, feeBps);
    const r = pool ?? (await reserves(tok));
    const minOut = (quote(amount - fee, r.weth, r.token) * 99n) / 100n;
    const expiry = (await latest()).timestamp + 3600n;
    const feeRecipient = fee > 0n ? FEE_RECIPIENT : '0x0000000000000000000000000000000000000000';
    const today = buyInitCode({
      router, wrappedNative: weth, token: tok, wallet: wallet.address, swapValue: amount - fee, amountOutMin: minOut, deadline: expiry,
      fee, feeRecipient: fee > 0n ? FEE_RECIPIENT : null, bribe, onlyInBlock,
    });
    const intent = { wallet: wallet.address, token: tok, amount, bribe, expiry, minIn: 0n, minOut, feeBps, feeRecipient, firstOrFail, nonce: intentNonce };
    const signature = await signBuyIntent(wallet, intent, target);
    return {
      today: { from: wallet.address, to: null, data: today, value: amount + bribe },
      executor: { from: relayer.address, to: executor, data: encodeExecute(intent, signature), value: 0n },
    };
  };

  /**
   * Mines `before` (transactions that go first in the same block, e.g. the launch) and then the
   * buy, from the same snapshot for both paths, in a block 12 s after the last one (so a pool
   * traded earlier updates its cumulative prices, as on a real chain); returns each buy's figures.
   */
  const compare = async (pair, before = []) => {
    const out = {};
    const timestamp = (await latest()).timestamp + 12n;
    for (const path of ['today', 'executor']) {
      const snapshot = await rpc('evm_snapshot');
      await rpc('evm_setNextBlockTimestamp', [hex(timestamp)]);
      for (const tx of before) await send(tx.from, tx.to, tx.data, tx.value);
      const hash = await send(pair[path].from, pair[path].to, pair[path].data, pair[path].value);
      await rpc('evm_mine');
      const r = await receipt(hash);
      if (r?.status !== '0x1') throw new Error(`${path} buy reverted (${hash})`);
      out[path] = { gasUsed: Number(BigInt(r.gasUsed)), calldataBytes: (pair[path].data.length - 2) / 2, block: Number(BigInt(r.blockNumber)) };
      if (!(await rpc('evm_revert', [snapshot]))) throw new Error('evm_revert failed');
    }
    return out;
  };

  const scenarios = [];
  const record = (name, description, m) => {
    const diff = m.executor.gasUsed - m.today.gasUsed;
    scenarios.push({ name, description, today: m.today, executor: m.executor, difference: diff, ratio: Math.round((m.executor.gasUsed / m.today.gasUsed) * 1000) / 1000 });
    log(`  ${name}: today ${m.today.gasUsed}, executor ${m.executor.gasUsed} (${diff >= 0 ? '+' : ''}${diff})`);
  };

  log('measuring');
  // 1. The launch block: the launch, then the buy, in one block; firstOrFail on both.
  {
    const tok = await token();
    const next = (await latest()).number + 1n;
    const launch = { from: deployer.address, to: router, data: await launchData(tok), value: 10n * ETH };
    // The pool after the launch (what the launch mints), to price minOut before it exists.
    const pool = { weth: 10n * ETH, token: SUPPLY / 10n };
    record(
      'launch block, firstOrFail',
      'the launch (addLiquidityETH) and the buy in one block; today: pinned to that block number; executor: firstOrFail (pool reserves, cumulative prices, last update)',
      await compare(await buys(tok, { firstOrFail: true, onlyInBlock: next, pool }), [launch]),
    );
  }
  // 2. A pool launched and traded in earlier blocks (its cumulative prices running).
  const traded = await token();
  await mined(deployer.address, router, await launchData(traded), 10n * ETH);
  await mined(trader.address, router, routerArt.iface.encodeFunctionData('swapExactETHForTokensSupportingFeeOnTransferTokens', [0, [weth, traded], trader.address, (await latest()).timestamp + 3600n]), ETH / 10n);
  record('later block', 'a pool launched and traded in earlier blocks; fee 1 %, bribe 0.01 ETH; the wallet\'s first executor nonce in its bitmap word', await compare(await buys(traded)));
  // 3. The same, the wallet's bitmap word already in use (every intent but one in 256).
  {
    const snapshot = await rpc('evm_snapshot');
    const first = await buys(traded, { intentNonce: 1000n });
    await mined(first.executor.from, first.executor.to, first.executor.data);
    record('later block, nonce word in use', 'as above after an earlier executed intent of the wallet in the same nonce word (nonces 1000 and 1001)', await compare(await buys(traded, { intentNonce: 1001n })));
    await rpc('evm_revert', [snapshot]);
  }
  // 4. No fee and no bribe.
  record('later block, no fee, no bribe', 'as "later block" with feeBps 0 and bribe 0 (nothing unwrapped or paid besides the swap)', await compare(await buys(traded, { feeBps: 0, bribe: 0n })));
  // 5. The wallet approved exactly amount + bribe (WETH9 then decrements the allowance).
  {
    const snapshot = await rpc('evm_snapshot');
    await mined(wallet.address, weth, weth9.iface.encodeFunctionData('approve', [executor, ETH / 10n + ETH / 100n]));
    record('later block, exact allowance', 'as "later block" with the wallet\'s allowance exactly amount + bribe instead of unlimited', await compare(await buys(traded)));
    await rpc('evm_revert', [snapshot]);
  }

  const { solcVersion, settings, deployedBytecode } = executorArtifact();
  return {
    benchmark: 'executor-gas',
    createdAt: new Date().toISOString(),
    machine: { ...hostInfo(), node: process.version, hardhat: packageVersion(ROOT, 'hardhat'), hardfork: network.hardfork },
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
    executor: { solcVersion, settings, runtimeBytes: (deployedBytecode.length - 2) / 2, deploymentGas: Number(BigInt(deployment.gasUsed)) },
    oneOff: {
      description: "the wallet's setup for the executor path, once per wallet (today's path has none); the executor's deployment, once per chain",
      wrapWethGas: Number(BigInt(wrap.gasUsed)),
      approveExecutorGas: Number(BigInt(approveMax.gasUsed)),
      deployExecutorGas: Number(BigInt(deployment.gasUsed)),
    },
    scenarios,
  };
}

function table(result) {
  const rows = [['scenario', 'today (gas)', 'executor (gas)', 'difference', 'ratio'], ...result.scenarios.map((s) => [s.name, s.today.gasUsed, s.executor.gasUsed, `${s.difference >= 0 ? '+' : ''}${s.difference}`, `${s.ratio}×`])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  const o = result.oneOff;
  return [
    line(rows[0]),
    ...rows.slice(1).map(line),
    '',
    `one-off: executor deployment ${o.deployExecutorGas} gas per chain; per wallet: wrap ${o.wrapWethGas} + approve ${o.approveExecutorGas} gas`,
  ].join('\n');
}

main().catch((err) => {
  log(`bench failed: ${process.env.BENCH_DEBUG === '1' ? err.stack : err.message}`);
  process.exit(1);
});
