import { JsonRpcCode } from '@tradeinfra/contracts';
import { Transaction } from 'ethers';
import { RpcFault } from '../common/json-rpc.js';

/** A signed transaction, decoded and its signature checked. Addresses lowercase. */
export interface DecodedTx {
  raw: string;
  hash: string;
  type: number;
  chainId: bigint;
  from: string;
  to: string | null;
  nonce: number;
  value: bigint;
  data: string;
  gasLimit: bigint;
  /** What one unit of gas may cost at most: `maxFeePerGas`, or `gasPrice` before EIP-1559. */
  maxFeePerGas: bigint;
}

const reject = (message: string) => new RpcFault(JsonRpcCode.Rejected, message);

/** Decodes signed bytes; refuses what no chain would take from us (unsigned, blob, not replay-protected, too large). */
export function decodeTransaction(raw: string, maxBytes: number): DecodedTx {
  if ((raw.length - 2) / 2 > maxBytes) throw reject(`transaction is ${(raw.length - 2) / 2} bytes; at most ${maxBytes} are taken`);
  let tx: Transaction;
  try {
    tx = Transaction.from(raw);
  } catch (err) {
    throw reject(`transaction could not be decoded: ${(err as Error).message.split(' (')[0]}`);
  }
  if (tx.type === 3) throw reject('blob transactions (type 3) are not taken');
  if (!tx.signature) throw reject('transaction is not signed');
  let from: string | null;
  try {
    from = tx.from;
  } catch {
    from = null;
  }
  if (!from) throw reject('transaction signature is invalid');
  if (tx.chainId === 0n) throw reject('transaction is not replay-protected (no chain id, EIP-155)');
  const maxFeePerGas = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  return {
    raw,
    hash: tx.hash!,
    type: tx.type ?? 0,
    chainId: tx.chainId,
    from: from.toLowerCase(),
    to: tx.to?.toLowerCase() ?? null,
    nonce: tx.nonce,
    value: tx.value,
    data: tx.data,
    gasLimit: tx.gasLimit,
    maxFeePerGas,
  };
}

/** What the chain says of the sender, at the head. */
export interface SenderState {
  /** Its next nonce (transactions mined). */
  nonce: number;
  balance: bigint;
}

/**
 * The checks against the chain: the right chain, the sender's next nonce exactly (a lower one is
 * used; a higher one would wait on a transaction we do not have), and a balance covering the
 * value plus the most the gas may cost.
 */
export function checkAgainstChain(tx: DecodedTx, chainId: number, state: SenderState): void {
  if (tx.chainId !== BigInt(chainId)) throw reject(`transaction is for chain ${tx.chainId}, this endpoint is chain ${chainId}`);
  if (tx.nonce < state.nonce) throw reject(`nonce too low: ${tx.from} has used nonce ${tx.nonce} already (next nonce ${state.nonce})`);
  if (tx.nonce > state.nonce) {
    throw reject(
      `nonce too high: ${tx.from}'s next nonce is ${state.nonce}, got ${tx.nonce} (send the transactions before it first; a private transaction waits for no other)`,
    );
  }
  const cost = tx.value + tx.gasLimit * tx.maxFeePerGas;
  if (state.balance < cost) {
    throw reject(`insufficient funds: ${tx.from} holds ${state.balance} wei, the value plus gas limit × max fee is ${cost} wei`);
  }
}
