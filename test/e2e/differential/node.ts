import { join } from 'node:path';

/** The reference node (hardhat, EDR inside) lives in test-support, shared with the other suites. */
export { BLOCK_GAS_LIMIT, HARDFORK, HardhatNode, JsonRpc, JsonRpcError } from '@tradeinfra/test-support';

/** The monorepo root (this file is test/e2e/differential/node.ts). */
export const ROOT = join(import.meta.dirname, '..', '..', '..');
