import { Contract, getAddress, isAddress, JsonRpcProvider, Network, Wallet, type TransactionReceipt } from 'ethers';
import { executorArtifact, executorDeployData } from './artifact.js';

export interface DeployOptions {
  /** JSON-RPC URL of the chain's node. */
  rpcUrl: string;
  /** The chain's Uniswap-V2-style router. */
  router: string;
  /** The wrapped native token; read from the router's `WETH()` when omitted. */
  wrappedNative?: string;
  /** The deployer's private key (it pays the deployment's gas and has no role afterwards). */
  privateKey: string;
  /** Milliseconds to wait for the deployment to be mined (default 5 minutes). */
  timeoutMs?: number;
}

export interface Deployment {
  chainId: bigint;
  address: string;
  router: string;
  factory: string;
  wrappedNative: string;
  txHash: string;
  blockNumber: number;
  gasUsed: bigint;
}

/** A deployment refused before anything was sent (bad input, wrong chain setup). */
export class DeployError extends Error {
  override name = 'DeployError';
}

const ROUTER_ABI = ['function factory() view returns (address)', 'function WETH() view returns (address)'];

/**
 * Deploys one IntentExecutor for the router's chain. Checks first that the router and the
 * wrapped native token are contracts, that the router has a factory, and that a given
 * `wrappedNative` is the router's `WETH()` (when the router has one); after mining, that the
 * contract is there and reads back the same router and wrapped native token.
 */
export async function deployExecutor(options: DeployOptions): Promise<Deployment> {
  const { rpcUrl, timeoutMs = 300_000 } = options;
  if (!/^0x[0-9a-fA-F]{64}$/.test(options.privateKey)) throw new DeployError('the deployer key is not a 0x-prefixed 32-byte hex private key');
  const router = address('router', options.router);
  const given = options.wrappedNative === undefined ? null : address('wrapped native token', options.wrappedNative);

  const chainId = await chainIdOf(rpcUrl);
  const provider = new JsonRpcProvider(rpcUrl, Network.from(chainId), { staticNetwork: true, pollingInterval: 500 });
  try {
    const deployer = new Wallet(options.privateKey, provider);
    if ((await provider.getCode(router)) === '0x') throw new DeployError(`no contract at router ${router} on chain ${chainId}`);
    const routerContract = new Contract(router, ROUTER_ABI, provider);
    const factory = getAddress(
      await routerContract
        .getFunction('factory')
        .staticCall()
        .catch(() => {
          throw new DeployError(`${router} has no factory(): not a Uniswap-V2-style router`);
        }),
    );
    const routerWeth = await routerContract
      .getFunction('WETH')
      .staticCall()
      .then(getAddress, () => null);
    const wrappedNative = given ?? routerWeth;
    if (!wrappedNative) throw new DeployError(`${router} has no WETH(): pass the wrapped native token (--weth)`);
    if (routerWeth && routerWeth !== wrappedNative) throw new DeployError(`the router's WETH() is ${routerWeth}, not ${wrappedNative}`);
    if ((await provider.getCode(wrappedNative)) === '0x') throw new DeployError(`no contract at wrapped native token ${wrappedNative}`);

    const sent = await deployer.sendTransaction({ data: executorDeployData(router, wrappedNative) }).catch((err: unknown) => {
      throw new DeployError(`the node refused the deployment from ${deployer.address}: ${nodeMessage(err)}`);
    });
    const receipt = await minedReceipt(provider, sent.hash, timeoutMs);
    if (!receipt) throw new Error(`deployment ${sent.hash} not mined within ${timeoutMs} ms`);
    if (receipt.status !== 1 || !receipt.contractAddress) throw new Error(`deployment ${sent.hash} reverted`);
    const deployed = new Contract(receipt.contractAddress, executorArtifact().abi, provider);
    const [readRouter, readWeth] = await Promise.all([deployed.getFunction('router').staticCall(), deployed.getFunction('wrappedNative').staticCall()]);
    if (getAddress(readRouter) !== router || getAddress(readWeth) !== wrappedNative) {
      throw new Error(`the contract at ${receipt.contractAddress} does not read back router ${router} and wrapped native ${wrappedNative}`);
    }
    return {
      chainId,
      address: getAddress(receipt.contractAddress),
      router,
      factory,
      wrappedNative,
      txHash: sent.hash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
    };
  } finally {
    provider.destroy();
  }
}

/**
 * The transaction's receipt once mined, or null after `timeoutMs`. Polled by hand: ethers'
 * `waitForTransaction` can wait for a next block forever when the node mined the transaction
 * before ethers' cached block number caught up and no later block comes (an automining dev node).
 */
async function minedReceipt(provider: JsonRpcProvider, hash: string, timeoutMs: number): Promise<TransactionReceipt | null> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const receipt = await provider.getTransactionReceipt(hash);
    if (receipt || performance.now() > deadline) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The node's own words from an ethers error, without the payload ethers attaches (the signed
 * transaction: no secret, but kilobytes of hex).
 */
function nodeMessage(err: unknown): string {
  const e = err as { error?: { message?: string }; info?: { error?: { message?: string } }; shortMessage?: string; message?: string };
  return e.error?.message ?? e.info?.error?.message ?? e.shortMessage ?? e.message ?? String(err);
}

function address(what: string, value: string): string {
  if (!isAddress(value)) throw new DeployError(`the ${what} ${JSON.stringify(value)} is not an address`);
  return getAddress(value.toLowerCase());
}

/** The node's chain id, asked once with a deadline (ethers would retry an unreachable node forever). */
async function chainIdOf(rpcUrl: string): Promise<bigint> {
  let url: URL;
  try {
    url = new URL(rpcUrl);
  } catch {
    throw new DeployError(`the RPC URL ${JSON.stringify(rpcUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DeployError('the RPC URL must be http(s)');
  let reply: { result?: string; error?: { message: string } };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(15_000),
    });
    reply = (await res.json()) as typeof reply;
  } catch (err) {
    throw new DeployError(`the node at ${url.origin} did not answer eth_chainId: ${(err as Error).message}`);
  }
  if (!reply.result) throw new DeployError(`eth_chainId failed: ${reply.error?.message ?? 'no result'}`);
  return BigInt(reply.result);
}
