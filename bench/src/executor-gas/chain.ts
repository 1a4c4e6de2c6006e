import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HDNodeWallet, Interface } from 'ethers';
import { ROOT, startHardhatNode, type BenchNode, type Children } from '../harness/index.js';

export const MNEMONIC = 'test test test test test test test test test test test junk';
export const CHAIN_ID = 31337;
export const ETH = 10n ** 18n;
export const SUPPLY = 10n ** 27n;

export const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;
export const account = (i: number) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);

/** apps/intent-service's buy transaction (built): what the product sends today. */
export interface BuyPlan {
  router: string;
  wrappedNative: string;
  token: string;
  wallet: string;
  swapValue: bigint;
  amountOutMin: bigint;
  deadline: bigint;
  fee: bigint;
  feeRecipient: string | null;
  bribe: bigint;
  onlyInBlock: bigint | null;
  /** firstOrFail behind a pending launch: the pair whose first liquidity must come in the buy's block. */
  onlyInLaunchBlockOf: string | null;
}

export async function loadBuyInitCode(): Promise<(plan: BuyPlan) => string> {
  const mod = (await import(pathToFileURL(join(ROOT, 'apps/intent-service/dist/execution/buy.js')).href)) as { buyInitCode: (plan: BuyPlan) => string };
  return mod.buyInitCode;
}

export interface Artifact {
  iface: Interface;
  bytecode: string;
}

/** A compiled contract from an npm package (`@uniswap/…/build/X.json`). */
export function artifact(path: string): Artifact {
  const json = JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8')) as { abi: ConstructorParameters<typeof Interface>[0]; bytecode: string };
  return { iface: new Interface(json.abi), bytecode: json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}` };
}

export interface Receipt {
  status: string;
  gasUsed: string;
  blockNumber: string;
  contractAddress: string | null;
}

export interface Tx {
  from: string;
  to: string | null;
  data: string;
  value: bigint;
}

/** The node's hardhat network: chain 31337, Prague, base fee 0, no automine. */
export const NETWORK = {
  chainId: CHAIN_ID,
  hardfork: 'prague',
  initialBaseFeePerGas: 0,
  allowBlocksWithSameTimestamp: true,
  mining: { auto: false, interval: 0, mempool: { order: 'fifo' } },
  accounts: { mnemonic: MNEMONIC, count: 10 },
};

/** The hardhat node of the bench, and sending from its unlocked accounts. */
export class GasChain {
  private constructor(readonly node: BenchNode) {}

  static async start(children: Children, dir: string): Promise<GasChain> {
    return new GasChain(await startHardhatNode({ children, dir, network: NETWORK }));
  }

  rpc<T = any>(method: string, params: unknown[] = []): Promise<T> {
    return this.node.rpc.call<T>(method, params);
  }

  /** Sends from an unlocked account (gas price 0); the hash. */
  send(from: string, to: string | null, data: string, value = 0n): Promise<string> {
    return this.rpc('eth_sendTransaction', [
      { from, ...(to ? { to } : {}), data, value: hex(value), gas: hex(10_000_000), maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' },
    ]);
  }

  receipt(hash: string): Promise<Receipt | null> {
    return this.rpc('eth_getTransactionReceipt', [hash]);
  }

  /** Sends and mines a set-up transaction; its receipt (throws when it failed). */
  async mined(from: string, to: string | null, data: string, value = 0n): Promise<Receipt> {
    const hash = await this.send(from, to, data, value);
    await this.rpc('evm_mine');
    const r = await this.receipt(hash);
    if (r?.status !== '0x1') throw new Error(`setup transaction ${hash} failed`);
    return r;
  }

  async latest(): Promise<{ number: bigint; timestamp: bigint }> {
    const b = await this.rpc<{ number: string; timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
    return { number: BigInt(b.number), timestamp: BigInt(b.timestamp) };
  }

  /** Deploys `art` from `from` with constructor `args`; its address. */
  async create(from: string, art: Artifact, args: unknown[]): Promise<string> {
    return (await this.mined(from, null, art.bytecode + art.iface.encodeDeploy(args).slice(2))).contractAddress!;
  }
}
