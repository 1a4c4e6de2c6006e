/**
 * What the services know of each supported chain's DEX and coins by default (every value can be
 * overridden per chain in the environment).
 */

/**
 * Uniswap-V2-style DEX per chain: factory, router, wrapped native token and a native/stable pair
 * that prices liquidity and cashback balances (override with DEX_FACTORY_<id>, DEX_ROUTER_<id>,
 * WRAPPED_NATIVE_<id>, STABLE_PAIR_<id>).
 */
export const DEX_DEFAULTS: Record<number, { factory: string; router: string; wrappedNative: string; stablePair: string }> = {
  // Uniswap V2; USDC/WETH
  1: {
    factory: '0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f',
    router: '0x7a250d5630b4cf539739df2c5dacb4c659f2488d',
    wrappedNative: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    stablePair: '0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc',
  },
  // PancakeSwap V2; WBNB/BUSD
  56: {
    factory: '0xca143ce32fe78f1f7019d7d551a6402fc5350c73',
    router: '0x10ed43c718714eb63d5aa57b78b54704e256024e',
    wrappedNative: '0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c',
    stablePair: '0x58f876857a02d6762e0101bb5c46a8c1ed44dc16',
  },
  // QuickSwap; WMATIC/USDC
  137: {
    factory: '0x5757371414417b8c6caad45baef941abc7d3ab32',
    router: '0xa5e0829caced8ffdd4de3c43696c57f7d7a678ff',
    wrappedNative: '0x0d500b1d8e8ef31e21c99d1db9a6444d3adf1270',
    stablePair: '0x6e7a5fafcec6bb1e78bae2a1f0b612012bf14827',
  },
};

/** The native coin's symbol where the chain id says it (ETH elsewhere). */
export const NATIVE_ASSETS: Record<number, string> = { 1: 'ETH', 56: 'BNB', 137: 'POL' };

/** Assets worth one native coin each on a chain (the coin and its wrapped token; POL's old name). */
export const NATIVE_PRICED_ASSETS: Record<number, readonly string[]> = {
  1: ['ETH', 'WETH'],
  56: ['BNB', 'WBNB'],
  137: ['POL', 'WPOL', 'MATIC', 'WMATIC'],
};
