// The contracts deployed on the reference node, and the workloads simulated on them.
import { randomBytes } from 'node:crypto';
import { AbiCoder, keccak256 } from 'ethers';
import { DEADLINE, POOL, POOL_ETH, SUPPLY, SWAP_AMOUNT_IN, TRANSFER_AMOUNT, artifact, hex, rpc } from './context.js';
import { Reply } from '../harness/index.js';

/**
 * Deploys two ERC20s, WETH9, UniswapV2Factory and UniswapV2Router02 with hardhat's unlocked
 * accounts (eth_sendTransaction, automine), and seeds tokenA/tokenB and tokenA/WETH pools.
 * `trader` (another account) gets tokenA and approves the router for good: the node-side
 * eth_call / debug_traceCall of the swap run from it, so the simulated bundle's `from` keeps a
 * zero allowance and its approve matters.
 */
export async function deploy(url: string) {
  const [deployer, recipient, trader] = await rpc(url, 'eth_accounts');
  const send = async (from: any, to: any, data: any, { value = 0n, gas = 8_000_000 } = {}) => {
    const hash = await rpc(url, 'eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, gas: hex(gas), ...(value ? { value: hex(value) } : {}) }]);
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (!receipt || receipt.status !== '0x1') throw new Error(`setup transaction ${hash} failed: ${JSON.stringify(receipt)?.slice(0, 300)}`);
    return receipt;
  };
  const create = async (art: any, args: any) =>
    (await send(deployer, null, art.bytecode + art.iface.encodeDeploy(args).slice(2), { gas: 10_000_000 })).contractAddress.toLowerCase();

  const erc20 = artifact('@uniswap/v2-core/build/ERC20.json');
  const weth9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
  const factoryArt = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
  const routerArt = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
  const pairArt = artifact('@uniswap/v2-core/build/UniswapV2Pair.json');

  const tokenA = await create(erc20, [SUPPLY]);
  const tokenB = await create(erc20, [SUPPLY]);
  const weth = await create(weth9, []);
  const factory = await create(factoryArt, [deployer]);
  const router = await create(routerArt, [factory, weth]);
  const max = (1n << 256n) - 1n;

  await send(deployer, tokenA, erc20.iface.encodeFunctionData('approve', [router, max]));
  await send(deployer, tokenB, erc20.iface.encodeFunctionData('approve', [router, max]));
  await send(deployer, router, routerArt.iface.encodeFunctionData('addLiquidity', [tokenA, tokenB, POOL, POOL, 0n, 0n, deployer, DEADLINE]));
  await send(deployer, router, routerArt.iface.encodeFunctionData('addLiquidityETH', [tokenA, POOL, 0n, 0n, deployer, DEADLINE]), { value: POOL_ETH });
  // The bundle's sender starts with no allowance, so that the simulated approve is what makes the swap pass.
  await send(deployer, tokenA, erc20.iface.encodeFunctionData('approve', [router, 0n]));
  // The trader: tokenA, and the router approved once and for all (for the node-side measurements).
  await send(deployer, tokenA, erc20.iface.encodeFunctionData('transfer', [trader, POOL]));
  await send(trader, tokenA, erc20.iface.encodeFunctionData('approve', [router, max]));

  const factoryIface = factoryArt.iface;
  const pairAB = (await rpc(url, 'eth_call', [{ to: factory, data: factoryIface.encodeFunctionData('getPair', [tokenA, tokenB]) }, 'latest'])).replace(
    /^0x0{24}/,
    '0x',
  );
  const pairAW = (await rpc(url, 'eth_call', [{ to: factory, data: factoryIface.encodeFunctionData('getPair', [tokenA, weth]) }, 'latest'])).replace(
    /^0x0{24}/,
    '0x',
  );
  if (/^0x0+$/.test(pairAB) || /^0x0+$/.test(pairAW)) throw new Error('the Uniswap pairs were not created');
  const reserves = pairArt.iface.decodeFunctionResult(
    'getReserves',
    await rpc(url, 'eth_call', [{ to: pairAB, data: pairArt.iface.encodeFunctionData('getReserves') }, 'latest']),
  );
  if (reserves[0] !== POOL || reserves[1] !== POOL) throw new Error(`unexpected tokenA/tokenB reserves ${reserves[0]}, ${reserves[1]}`);
  return {
    accounts: { deployer, recipient, trader },
    contracts: { tokenA, tokenB, weth, factory, router, pairAB, pairAW },
    ifaces: { erc20: erc20.iface, router: routerArt.iface },
  };
}

// ---------------------------------------------------------------- workloads

/** The deployed contracts, the node's accounts and the interfaces the workloads encode with. */
export type Chain = Awaited<ReturnType<typeof deploy>>;

/** One bundle to simulate: its calls (or a body per block), the check of the answer and its node-side equivalent. */
export interface Workload {
  label: string;
  calls?: Array<{ from: string; to: string; data: string }>;
  body?: (blockNumber: bigint | number | null) => unknown;
  /** A reason the answer is wrong, or null. */
  check(calls: any): string | null;
  node?: { from: string; to: string; data: string };
  checkNode?: (result: any) => string | null;
  expectedOut?: bigint;
}

/**
 * The two bundles (through the gateway) and their node-side equivalents (eth_call /
 * debug_traceCall, one call: the transfer itself, and the swap from the pre-approved trader).
 */
export function workloads(chain: Chain): Record<'transfer' | 'swap', Workload> {
  const { deployer, recipient, trader } = chain.accounts;
  const { tokenA, tokenB, router } = chain.contracts;
  const { erc20, router: r } = chain.ifaces;
  const transferData = erc20.encodeFunctionData('transfer', [recipient, TRANSFER_AMOUNT]);
  const swapData = (to: string) => r.encodeFunctionData('swapExactTokensForTokens', [SWAP_AMOUNT_IN, 0n, [tokenA, tokenB], to, DEADLINE]);
  const expectedOut = (SWAP_AMOUNT_IN * 997n * POOL) / (POOL * 1000n + SWAP_AMOUNT_IN * 997n);
  const TRUE = `0x${'0'.repeat(63)}1`;
  return {
    transfer: {
      label: 'ERC20 transfer',
      calls: [{ from: deployer, to: tokenA, data: transferData }],
      /** A reason the answer is wrong, or null. */
      check(calls: any) {
        return calls[0].result === TRUE ? null : `transfer returned ${calls[0].result}`;
      },
      node: { from: deployer, to: tokenA, data: transferData },
      checkNode: (result) => (result === TRUE ? null : `eth_call transfer returned ${result}`),
    },
    swap: {
      label: 'Uniswap V2 approve + swap',
      calls: [
        { from: deployer, to: tokenA, data: erc20.encodeFunctionData('approve', [router, SWAP_AMOUNT_IN]) },
        { from: deployer, to: router, data: swapData(deployer) },
      ],
      check(calls: any) {
        const amounts = r.decodeFunctionResult('swapExactTokensForTokens', calls[1].result)[0];
        return amounts[1] === expectedOut ? null : `swap gave ${amounts[1]}, expected ${expectedOut}`;
      },
      node: { from: trader, to: router, data: swapData(trader) },
      checkNode(result: any) {
        const amounts = r.decodeFunctionResult('swapExactTokensForTokens', result)[0];
        return amounts[1] === expectedOut ? null : `eth_call swap gave ${amounts[1]}, expected ${expectedOut}`;
      },
      expectedOut,
    },
  };
}

export function simulateBody(w: Workload, blockNumber: bigint | number | null) {
  if (w.body) return JSON.stringify(w.body(blockNumber));
  return JSON.stringify({ chainId: 1, ...(blockNumber !== null ? { blockNumber: Number(blockNumber) } : {}), calls: w.calls });
}

/**
 * The approve + swap as a bundle of a shape never seen before: every request comes from a new
 * sender (a random address given the tokens with a storage override), so nothing of it is in the
 * service's memory of shapes, and its sender's accounts and slots in no cache.
 */
export function unseenSwapWorkload(chain: Chain, swap: Workload) {
  const { tokenA, tokenB, router } = chain.contracts;
  const { erc20, router: r } = chain.ifaces;
  const coder = AbiCoder.defaultAbiCoder();
  return {
    label: 'Uniswap V2 approve + swap, unseen shape',
    calls: swap.calls,
    check: swap.check,
    body(blockNumber: any) {
      const sender = `0x${randomBytes(20).toString('hex')}`;
      // The test ERC20 (UniswapV2ERC20 layout): balanceOf at slot 1.
      const balanceSlot = keccak256(coder.encode(['address', 'uint256'], [sender, 1n]));
      return {
        chainId: 1,
        ...(blockNumber !== null ? { blockNumber: Number(blockNumber) } : {}),
        overrides: { storage: { [tokenA]: { [balanceSlot]: hex(SWAP_AMOUNT_IN) } } },
        calls: [
          { from: sender, to: tokenA, data: erc20.encodeFunctionData('approve', [router, SWAP_AMOUNT_IN]) },
          { from: sender, to: router, data: r.encodeFunctionData('swapExactTokensForTokens', [SWAP_AMOUNT_IN, 0n, [tokenA, tokenB], sender, DEADLINE]) },
        ],
      };
    },
  };
}

/**
 * The approve + swap with a new swap deadline every request (one second later each time): the
 * same work and the same answer, but never the same request, so the service's kept answers
 * (its result cache) never answer it and every request is simulated.
 */
export function newEachTimeSwapWorkload(chain: Chain, swap: Workload) {
  const { tokenA, tokenB, router } = chain.contracts;
  const { deployer } = chain.accounts;
  const { router: r } = chain.ifaces;
  let n = 0n;
  return {
    label: 'Uniswap V2 approve + swap, a new bundle each request',
    calls: swap.calls,
    check: swap.check,
    body(blockNumber: any) {
      const deadline = DEADLINE + ++n;
      return {
        chainId: 1,
        ...(blockNumber !== null ? { blockNumber: Number(blockNumber) } : {}),
        calls: [
          swap.calls![0],
          { from: deployer, to: router, data: r.encodeFunctionData('swapExactTokensForTokens', [SWAP_AMOUNT_IN, 0n, [tokenA, tokenB], deployer, deadline]) },
        ],
      };
    },
  };
}

/** Checks one /v1/simulate answer: every call status 1, and the workload's own check. */
export function checkSimulation(w: Workload, res: Reply, stats: { processTimes: number[] } | null) {
  let body;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `not JSON: ${res.body.slice(0, 200)}`;
  }
  if (!Array.isArray(body.calls) || body.calls.length !== w.calls!.length) return `expected ${w.calls!.length} calls: ${res.body.slice(0, 300)}`;
  const bad = body.calls.findIndex((c: any) => c.status !== 1);
  if (bad >= 0) return `call #${bad} has status ${body.calls[bad].status} (${body.calls[bad].error ?? 'no error'})`;
  if (stats) stats.processTimes.push(body.processTime);
  try {
    return w.check(body.calls);
  } catch (err) {
    return `unreadable result: ${(err as any).message}`;
  }
}
