import { buyIntentFee, encodeExecute, executorDeployData, signBuyIntent } from '@tradeinfra/executor';
import { uniswapV2PairAddress } from '@tradeinfra/test-support';
import { MaxUint256 } from 'ethers';
import { account, artifact, CHAIN_ID, ETH, hex, loadBuyInitCode, SUPPLY, type GasChain, type Receipt, type Tx } from './chain.js';

const COINBASE = '0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e';
const FEE_RECIPIENT = '0xfee0000000000000000000000000000000000fee';
const ZERO = '0x0000000000000000000000000000000000000000';

export interface BuyOptions {
  amount?: bigint;
  bribe?: bigint;
  feeBps?: number;
  firstOrFail?: boolean;
  onlyInBlock?: bigint | null;
  /** Today's buy checks the pair's launch block (what a firstOrFail buy behind a pending launch does) rather than a block number. */
  onlyInLaunchBlockOf?: string | null;
  /** The pool's reserves to price minOut with (default: read from the chain). */
  pool?: { weth: bigint; token: bigint } | null;
  intentNonce?: bigint;
}

/** The same buy both ways: today's transaction and the executor's `execute`. */
export interface BuyPair {
  today: Tx;
  executor: Tx;
}

export interface PathFigures {
  gasUsed: number;
  calldataBytes: number;
  block: number;
}

const quote = (amountIn: bigint, rIn: bigint, rOut: bigint) => (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n);

/**
 * WETH9, the Uniswap V2 factory and router02 and the IntentExecutor deployed; the coinbase and
 * fee recipient funded; the wallet's one-off set-up for the executor path (wrap, approve).
 */
export class GasSetup {
  readonly deployer = account(0);
  readonly wallet = account(1);
  readonly relayer = account(2);
  readonly trader = account(3);
  readonly weth9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
  readonly factoryArt = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
  readonly routerArt = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
  readonly pairArt = artifact('@uniswap/v2-core/build/UniswapV2Pair.json');
  readonly erc20 = artifact('@uniswap/v2-core/build/ERC20.json');
  weth = '';
  factory = '';
  router = '';
  executor = '';
  deployment!: Receipt;
  wrap!: Receipt;
  approveMax!: Receipt;
  private nonce = 1n;
  private buyInitCode!: Awaited<ReturnType<typeof loadBuyInitCode>>;

  constructor(readonly chain: GasChain) {}

  async deploy(): Promise<void> {
    const { chain, deployer, wallet } = this;
    this.buyInitCode = await loadBuyInitCode();
    this.weth = await chain.create(deployer.address, this.weth9, []);
    this.factory = await chain.create(deployer.address, this.factoryArt, [deployer.address]);
    this.router = await chain.create(deployer.address, this.routerArt, [this.factory, this.weth]);
    this.deployment = await chain.mined(deployer.address, null, executorDeployData(this.router, this.weth));
    this.executor = this.deployment.contractAddress!;
    // The coinbase and the fee recipient exist (a real builder's coinbase does): paying them is
    // not an account creation in either path.
    await chain.rpc('hardhat_setCoinbase', [COINBASE]);
    await chain.rpc('hardhat_setBalance', [COINBASE, hex(1n)]);
    await chain.rpc('hardhat_setBalance', [FEE_RECIPIENT, hex(1n)]);
    // The wallet's one-off setup for the executor path: wrap, approve (today's path needs neither).
    this.wrap = await chain.mined(wallet.address, this.weth, this.weth9.iface.encodeFunctionData('deposit'), 50n * ETH);
    this.approveMax = await chain.mined(wallet.address, this.weth, this.weth9.iface.encodeFunctionData('approve', [this.executor, MaxUint256]));
  }

  /** A fresh ERC20 (the whole supply the deployer's), approved to the router. */
  async token(): Promise<string> {
    const address = await this.chain.create(this.deployer.address, this.erc20, [SUPPLY]);
    await this.chain.mined(this.deployer.address, address, this.erc20.iface.encodeFunctionData('approve', [this.router, MaxUint256]));
    return address;
  }

  /** addLiquidityETH of a tenth of the supply. */
  async launchData(token: string): Promise<string> {
    return this.routerArt.iface.encodeFunctionData('addLiquidityETH', [
      token,
      SUPPLY / 10n,
      0,
      0,
      this.deployer.address,
      (await this.chain.latest()).timestamp + 3600n,
    ]);
  }

  /** The address the factory's pair of `token` with WETH has, made or not (CREATE2). */
  pairAddress(token: string): string {
    return uniswapV2PairAddress(this.factory, token, this.weth, this.pairArt.bytecode);
  }

  async reserves(token: string): Promise<{ weth: bigint; token: bigint }> {
    const { factoryArt, pairArt, chain } = this;
    const getPair = await chain.rpc<string>('eth_call', [
      { to: this.factory, data: factoryArt.iface.encodeFunctionData('getPair', [token, this.weth]) },
      'latest',
    ]);
    const pair = factoryArt.iface.decodeFunctionResult('getPair', getPair)[0] as string;
    const got = await chain.rpc<string>('eth_call', [{ to: pair, data: pairArt.iface.encodeFunctionData('getReserves') }, 'latest']);
    const [r0, r1] = pairArt.iface.decodeFunctionResult('getReserves', got) as unknown as [bigint, bigint];
    return BigInt(this.weth) < BigInt(token) ? { weth: r0, token: r1 } : { weth: r1, token: r0 };
  }

  /** The same buy both ways: today's init code and the executor's intent. */
  async buys(token: string, options: BuyOptions = {}): Promise<BuyPair> {
    const {
      amount = ETH / 10n,
      bribe = ETH / 100n,
      feeBps = 100,
      firstOrFail = false,
      onlyInBlock = null,
      onlyInLaunchBlockOf = null,
      pool = null,
      intentNonce = this.nonce++,
    } = options;
    const { wallet } = this;
    const fee = buyIntentFee(amount, feeBps);
    const r = pool ?? (await this.reserves(token));
    const minOut = (quote(amount - fee, r.weth, r.token) * 99n) / 100n;
    const expiry = (await this.chain.latest()).timestamp + 3600n;
    const feeRecipient = fee > 0n ? FEE_RECIPIENT : ZERO;
    const today = this.buyInitCode({
      router: this.router,
      wrappedNative: this.weth,
      token,
      wallet: wallet.address,
      swapValue: amount - fee,
      amountOutMin: minOut,
      deadline: expiry,
      fee,
      feeRecipient: fee > 0n ? FEE_RECIPIENT : null,
      bribe,
      onlyInBlock,
      onlyInLaunchBlockOf,
    });
    const intent = { wallet: wallet.address, token, amount, bribe, expiry, minIn: 0n, minOut, feeBps, feeRecipient, firstOrFail, nonce: intentNonce };
    const signature = await signBuyIntent(wallet, intent, { chainId: CHAIN_ID, executor: this.executor });
    return {
      today: { from: wallet.address, to: null, data: today, value: amount + bribe },
      executor: { from: this.relayer.address, to: this.executor, data: encodeExecute(intent, signature), value: 0n },
    };
  }

  /**
   * Mines `before` (transactions that go first in the same block, e.g. the launch) and then the
   * buy, from the same snapshot for both paths, in a block 12 s after the last one (so a pool
   * traded earlier updates its cumulative prices, as on a real chain); returns each buy's figures.
   */
  async compare(pair: BuyPair, before: Tx[] = []): Promise<Record<'today' | 'executor', PathFigures>> {
    const { chain } = this;
    const out = {} as Record<'today' | 'executor', PathFigures>;
    const timestamp = (await chain.latest()).timestamp + 12n;
    for (const path of ['today', 'executor'] as const) {
      const snapshot = await chain.rpc<string>('evm_snapshot');
      await chain.rpc('evm_setNextBlockTimestamp', [hex(timestamp)]);
      for (const tx of before) await chain.send(tx.from, tx.to, tx.data, tx.value);
      const tx = pair[path];
      const hash = await chain.send(tx.from, tx.to, tx.data, tx.value);
      await chain.rpc('evm_mine');
      const r = await chain.receipt(hash);
      if (r?.status !== '0x1') throw new Error(`${path} buy reverted (${hash})`);
      out[path] = { gasUsed: Number(BigInt(r.gasUsed)), calldataBytes: (tx.data.length - 2) / 2, block: Number(BigInt(r.blockNumber)) };
      if (!(await chain.rpc<boolean>('evm_revert', [snapshot]))) throw new Error('evm_revert failed');
    }
    return out;
  }
}
