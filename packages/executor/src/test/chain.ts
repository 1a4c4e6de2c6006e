import { HardhatNode, LocalDex, mined, type Receipt } from '@tradeinfra/test-support';
import { Interface, MaxUint256, type HDNodeWallet } from 'ethers';
import { decodeExecutorRevert, executorArtifact, executorDeployData, type ExecutorRevert } from '../artifact.js';
import { signBuyIntent, type BuyIntent } from '../intent.js';

export const CHAIN_ID = 31337;
/** Development accounts the node unlocks (devWallet(0 … ACCOUNTS − 1)). */
export const ACCOUNTS = 48;
export const ETH = 10n ** 18n;
export const SUPPLY = 10n ** 27n;
/** The block builder of every block (`hardhat_setCoinbase`): receives the bribes. */
export const COINBASE = '0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e';
export const FEE_RECIPIENT = '0xfee0000000000000000000000000000000000fee';
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;

const PAIR = new Interface([
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function price0CumulativeLast() view returns (uint256)',
  'function price1CumulativeLast() view returns (uint256)',
  'function token0() view returns (address)',
]);
const ERC20 = new Interface([
  'function approve(address, uint256) returns (bool)',
  'function allowance(address, address) view returns (uint256)',
  'function deposit() payable',
  'function transfer(address, uint256) returns (bool)',
]);

/** A transaction sent and mined (or left pending when the node does not automine). */
export interface Sent {
  hash: string;
  receipt: Receipt | null;
}

/**
 * A hardhat node with WETH9, the Uniswap V2 factory and router (packages/test-support's LocalDex)
 * and an IntentExecutor deployed with them. Every transaction the tests send pays no gas price
 * (the base fee is 0), so the coinbase's balance moves only by the bribes. The node does not
 * automine: each send mines its own block, or {@link inOneBlock} mines several together.
 */
export class ExecutorChain {
  readonly iface = executorArtifact().iface;

  private constructor(
    readonly node: HardhatNode,
    readonly dex: LocalDex,
    readonly executor: string,
  ) {}

  static async start(): Promise<ExecutorChain> {
    const node = await HardhatNode.start({ chainId: CHAIN_ID, accounts: ACCOUNTS });
    try {
      const dex = await LocalDex.deploy(node);
      const executor = (await mined(node, dex.owner, null, executorDeployData(dex.router, dex.weth))).contractAddress!.toLowerCase();
      await node.rpc.call('hardhat_setCoinbase', [COINBASE]);
      await node.rpc.call('evm_setAutomine', [false]);
      return new ExecutorChain(node, dex, executor);
    } catch (err) {
      await node.stop();
      throw err;
    }
  }

  get target() {
    return { chainId: CHAIN_ID, executor: this.executor };
  }

  rpc<T = any>(method: string, params: unknown[] = []): Promise<T> {
    return this.node.rpc.call<T>(method, params);
  }

  stop(): Promise<void> {
    return this.node.stop();
  }

  // ------------------------------------------------------------------ reading the chain

  async call(to: string, data: string, block: string = 'latest'): Promise<string> {
    return this.rpc<string>('eth_call', [{ to, data }, block]);
  }

  async view<T = unknown>(name: string, args: unknown[] = []): Promise<T> {
    const result = this.iface.decodeFunctionResult(name, await this.call(this.executor, this.iface.encodeFunctionData(name, args)));
    return result[0] as T;
  }

  async nativeBalance(address: string): Promise<bigint> {
    return BigInt(await this.rpc<string>('eth_getBalance', [address, 'latest']));
  }

  wethBalance(holder: string): Promise<bigint> {
    return this.dex.balanceOf(this.dex.weth, holder);
  }

  async allowance(owner: string): Promise<bigint> {
    return BigInt(await this.call(this.dex.weth, ERC20.encodeFunctionData('allowance', [owner, this.executor])));
  }

  async block(tag: string = 'latest'): Promise<{ number: bigint; timestamp: bigint }> {
    const b = await this.rpc<{ number: string; timestamp: string }>('eth_getBlockByNumber', [tag, false]);
    return { number: BigInt(b.number), timestamp: BigInt(b.timestamp) };
  }

  /** The pair's WETH and token reserves, its last update's timestamp and its cumulative prices. */
  async pool(
    token: string,
  ): Promise<{ pair: string; reserveWeth: bigint; reserveToken: bigint; timestampLast: bigint; cumulative0: bigint; cumulative1: bigint }> {
    const pair = await this.dex.pairOf(token);
    const read = async (name: string) => PAIR.decodeFunctionResult(name, await this.call(pair, PAIR.encodeFunctionData(name)));
    const [r0, r1, last] = (await read('getReserves')) as unknown as [bigint, bigint, bigint];
    const token0 = ((await read('token0'))[0] as string).toLowerCase();
    const [cumulative0] = (await read('price0CumulativeLast')) as unknown as [bigint];
    const [cumulative1] = (await read('price1CumulativeLast')) as unknown as [bigint];
    const wethFirst = token0 === this.dex.weth;
    return { pair, reserveWeth: wethFirst ? r0 : r1, reserveToken: wethFirst ? r1 : r0, timestampLast: last, cumulative0, cumulative1 };
  }

  // ------------------------------------------------------------------ writing

  /**
   * Sends from an unlocked account with no gas price and mines it in a block of its own, unless
   * inside {@link inOneBlock}. (Mining by hand: with automine, hardhat answers a reverting
   * transaction with an error instead of its hash.)
   */
  async send(from: string, to: string | null, data: string, value = 0n): Promise<Sent> {
    const hash = await this.rpc<string>('eth_sendTransaction', [
      { from, ...(to ? { to } : {}), data, value: hex(value), gas: hex(3_000_000), maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' },
    ]);
    if (this.holding) return { hash, receipt: null };
    await this.mine();
    return { hash, receipt: await this.receipt(hash) };
  }

  private holding = false;

  /** Runs `sends` with mining held, then mines everything they sent in one block, in order. */
  async inOneBlock<T>(sends: () => Promise<T>): Promise<T> {
    this.holding = true;
    try {
      return await sends();
    } finally {
      this.holding = false;
      await this.mine();
    }
  }

  receipt(hash: string): Promise<Receipt | null> {
    return this.rpc<Receipt | null>('eth_getTransactionReceipt', [hash]);
  }

  /** Sends and requires success. */
  async ok(from: string, to: string | null, data: string, value = 0n): Promise<Receipt> {
    const { hash, receipt } = await this.send(from, to, data, value);
    if (receipt?.status !== '0x1') throw new Error(`${hash} ${receipt ? `reverted: ${JSON.stringify(await this.revertOf(hash))}` : 'was not mined'}`);
    return receipt;
  }

  /** Wraps `amount` of `wallet`'s ether and approves `allowance` of WETH to the executor. */
  async fund(wallet: string, amount: bigint, allowance: bigint = MaxUint256): Promise<void> {
    await this.ok(wallet, this.dex.weth, ERC20.encodeFunctionData('deposit'), amount);
    await this.approve(wallet, allowance);
  }

  async approve(wallet: string, allowance: bigint): Promise<void> {
    await this.ok(wallet, this.dex.weth, ERC20.encodeFunctionData('approve', [this.executor, allowance]));
  }

  /** A fresh token with a pool of `tokenAmount` against `native` wei, launched now. */
  async launchedToken(tokenAmount = SUPPLY / 10n, native = 10n * ETH, kind: 'PlainToken' | 'TaxToken' = 'PlainToken', args?: unknown[]): Promise<string> {
    const token = await this.dex.deployToken(kind, args ?? [SUPPLY]);
    await this.dex.launch(token, tokenAmount, native);
    return token;
  }

  /** The launch's approval of the router (before {@link sendLaunch}). */
  async approveLaunch(token: string): Promise<void> {
    await this.ok(this.dex.owner, token, ERC20.encodeFunctionData('approve', [this.dex.router, MaxUint256]));
  }

  /** The launch's transaction: addLiquidityETH from the DEX owner. */
  async sendLaunch(token: string, tokenAmount: bigint, native: bigint): Promise<Sent> {
    const deadline = (await this.block()).timestamp + 3600n;
    const data = this.dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, tokenAmount, 0, 0, this.dex.owner, deadline]);
    return this.send(this.dex.owner, this.dex.router, data, native);
  }

  /** A plain buy through the router (someone else trading on the pool). */
  swapEthForTokens(from: string, token: string, value: bigint, deadline: bigint): Promise<Sent> {
    const data = this.dex.a.UniswapV2Router02!.iface.encodeFunctionData('swapExactETHForTokensSupportingFeeOnTransferTokens', [
      0,
      [this.dex.weth, token],
      from,
      deadline,
    ]);
    return this.send(from, this.dex.router, data, value);
  }

  /** Signs `intent` with `wallet`'s key for this executor and sends `execute` from `relayer`. */
  async execute(relayer: string, intent: BuyIntent, signer: HDNodeWallet, signature?: string): Promise<Sent> {
    const sig = signature ?? (await signBuyIntent(signer, intent, this.target));
    return this.send(relayer, this.executor, this.iface.encodeFunctionData('execute', [intent, sig]));
  }

  /** What `execute` would revert with right now (eth_call on `block`), or null if it would succeed. */
  async wouldRevert(relayer: string, data: string, block = 'latest'): Promise<ExecutorRevert | 'empty' | null> {
    try {
      await this.rpc('eth_call', [{ from: relayer, to: this.executor, data }, block]);
      return null;
    } catch (err) {
      const raw = (err as { data?: unknown }).data;
      const data = typeof raw === 'string' ? raw : (raw as { data?: string } | undefined)?.data;
      if (!data || data === '0x') return 'empty';
      return decodeExecutorRevert(data) ?? { name: 'unknown', args: { data } };
    }
  }

  /** The revert data of a mined transaction, decoded (from the node's trace of it). */
  async revertOf(hash: string): Promise<ExecutorRevert | 'empty' | null> {
    const trace = await this.rpc<{ failed: boolean; returnValue: string }>('debug_traceTransaction', [
      hash,
      { disableStack: true, disableMemory: true, disableStorage: true },
    ]);
    if (!trace.failed) return null;
    const data = trace.returnValue.startsWith('0x') ? trace.returnValue : `0x${trace.returnValue}`;
    if (data === '0x') return 'empty';
    return decodeExecutorRevert(data) ?? { name: 'unknown', args: { data } };
  }

  /** The executor's events in a receipt, decoded. */
  events(receipt: Receipt & { logs?: { address: string; topics: string[]; data: string }[] }): { name: string; args: Record<string, unknown> }[] {
    const out: { name: string; args: Record<string, unknown> }[] = [];
    for (const log of receipt.logs ?? []) {
      if (log.address.toLowerCase() !== this.executor) continue;
      const parsed = this.iface.parseLog(log);
      if (parsed) out.push({ name: parsed.name, args: parsed.args.toObject() });
    }
    return out;
  }

  async setNextTimestamp(timestamp: bigint): Promise<void> {
    await this.rpc('evm_setNextBlockTimestamp', [hex(timestamp)]);
  }

  async mine(): Promise<void> {
    await this.rpc('evm_mine', []);
  }
}

/** Uniswap V2's quote (0.3 % fee), as the pair computes it. */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}
