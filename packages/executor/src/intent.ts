import { TypedDataEncoder, verifyTypedData, type TypedDataDomain, type TypedDataField } from 'ethers';

/**
 * A wallet's pre-signed buy, as the IntentExecutor contract checks it (its struct `BuyIntent`).
 * Amounts in wei / token units as bigints; see IntentExecutor.sol for each field.
 */
export interface BuyIntent {
  wallet: string;
  token: string;
  amount: bigint;
  bribe: bigint;
  expiry: bigint;
  minIn: bigint;
  minOut: bigint;
  feeBps: number;
  /** The zero address when there is no fee. */
  feeRecipient: string;
  firstOrFail: boolean;
  nonce: bigint;
}

/** Which executor (and chain) a signature is for: the EIP-712 domain's variable part. */
export interface ExecutorTarget {
  chainId: bigint | number;
  /** The IntentExecutor's address on that chain (`EXECUTOR_<chainId>`). */
  executor: string;
}

/** Merkle's domain name and version (docs.merkle.io, POST /v1/wallet/intent). */
export const EIP712_NAME = 'OPL';
export const EIP712_VERSION = '1';

/** The EIP-712 types, in the contract's field order. */
export const BUY_INTENT_TYPES: Record<'BuyIntent', TypedDataField[]> = {
  BuyIntent: [
    { name: 'wallet', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'bribe', type: 'uint256' },
    { name: 'expiry', type: 'uint256' },
    { name: 'minIn', type: 'uint256' },
    { name: 'minOut', type: 'uint256' },
    { name: 'feeBps', type: 'uint16' },
    { name: 'feeRecipient', type: 'address' },
    { name: 'firstOrFail', type: 'bool' },
    { name: 'nonce', type: 'uint256' },
  ],
};

/** `BuyIntent(address wallet,…,uint256 nonce)`: the string the contract's type hash is made of. */
export const BUY_INTENT_TYPE = TypedDataEncoder.from(BUY_INTENT_TYPES).encodeType('BuyIntent');

export function executorDomain({ chainId, executor }: ExecutorTarget): TypedDataDomain {
  return { name: EIP712_NAME, version: EIP712_VERSION, chainId: BigInt(chainId), verifyingContract: executor };
}

/** The intent as the ABI / EIP-712 value (field order of the struct). */
export function toStruct(intent: BuyIntent): Record<keyof BuyIntent, unknown> {
  const { wallet, token, amount, bribe, expiry, minIn, minOut, feeBps, feeRecipient, firstOrFail, nonce } = intent;
  return { wallet, token, amount, bribe, expiry, minIn, minOut, feeBps, feeRecipient, firstOrFail, nonce };
}

/** The EIP-712 digest of `intent` for that executor: what the wallet signs, and the id in the contract's events. */
export function buyIntentDigest(intent: BuyIntent, target: ExecutorTarget): string {
  return TypedDataEncoder.hash(executorDomain(target), BUY_INTENT_TYPES, toStruct(intent));
}

/** Anything that signs EIP-712 typed data the way ethers v6 signers do (a Wallet, a JsonRpcSigner). */
export interface TypedDataSigner {
  signTypedData(domain: TypedDataDomain, types: Record<string, TypedDataField[]>, value: Record<string, unknown>): Promise<string>;
}

/** The wallet's 65-byte signature of `intent` (`eth_signTypedData_v4`). */
export function signBuyIntent(wallet: TypedDataSigner, intent: BuyIntent, target: ExecutorTarget): Promise<string> {
  return wallet.signTypedData(executorDomain(target), BUY_INTENT_TYPES, toStruct(intent));
}

/**
 * The address whose ECDSA key signed `intent` (compare with `intent.wallet`). Throws on a
 * malformed signature. A contract wallet's (ERC-1271) signature can only be checked on-chain.
 */
export function recoverBuyIntentSigner(intent: BuyIntent, signature: string, target: ExecutorTarget): string {
  return verifyTypedData(executorDomain(target), BUY_INTENT_TYPES, toStruct(intent), signature);
}

/** The fee the contract takes from `amount`: `amount × feeBps / 10000`, rounded down. */
export function buyIntentFee(amount: bigint, feeBps: number): bigint {
  return (amount * BigInt(feeBps)) / 10_000n;
}

/** Where `nonce` lives in the wallet's nonce bitmap: `invalidateNonces(wordPos, mask)` revokes it. */
export function nonceBit(nonce: bigint): { wordPos: bigint; mask: bigint } {
  return { wordPos: nonce >> 8n, mask: 1n << (nonce & 0xffn) };
}

/**
 * Merkle's wallet intent: the 5-field `BuyIntent` of docs.merkle.io's `POST /v1/wallet/intent`,
 * signed in the same domain (`OPL`, `1`, chainId, the executor). It names neither the wallet
 * (the signer) nor a nonce: the executor spends each struct hash once per wallet.
 */
export interface MerkleBuyIntent {
  token: string;
  amount: bigint;
  bribe: bigint;
  expiry: bigint;
  minIn: bigint;
}

/** Merkle's EIP-712 types, exactly as its page lists them. */
export const MERKLE_BUY_INTENT_TYPES: Record<'BuyIntent', TypedDataField[]> = {
  BuyIntent: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'bribe', type: 'uint256' },
    { name: 'expiry', type: 'uint256' },
    { name: 'minIn', type: 'uint256' },
  ],
};

/** The intent as the ABI / EIP-712 value (field order of the struct). */
export function toMerkleStruct(intent: MerkleBuyIntent): Record<keyof MerkleBuyIntent, unknown> {
  const { token, amount, bribe, expiry, minIn } = intent;
  return { token, amount, bribe, expiry, minIn };
}

/** The EIP-712 struct hash: what the executor marks spent per wallet (`merkleIntentUsed(wallet, structHash)`). */
export function merkleStructHash(intent: MerkleBuyIntent): string {
  return TypedDataEncoder.from(MERKLE_BUY_INTENT_TYPES).hash(toMerkleStruct(intent));
}

/** The EIP-712 digest the wallet signs (and the id in the executor's events). */
export function merkleBuyIntentDigest(intent: MerkleBuyIntent, target: ExecutorTarget): string {
  return TypedDataEncoder.hash(executorDomain(target), MERKLE_BUY_INTENT_TYPES, toMerkleStruct(intent));
}

export function signMerkleBuyIntent(wallet: TypedDataSigner, intent: MerkleBuyIntent, target: ExecutorTarget): Promise<string> {
  return wallet.signTypedData(executorDomain(target), MERKLE_BUY_INTENT_TYPES, toMerkleStruct(intent));
}

/** The address whose ECDSA key signed Merkle's `intent` for that executor. Throws on a malformed signature. */
export function recoverMerkleBuyIntentSigner(intent: MerkleBuyIntent, signature: string, target: ExecutorTarget): string {
  return verifyTypedData(executorDomain(target), MERKLE_BUY_INTENT_TYPES, toMerkleStruct(intent), signature);
}
