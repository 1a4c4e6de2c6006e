import type { CreateIntentInput, CreateWalletIntentInput, ListEntriesInput, PayoutEntry, SearchIntentsInput, SimulateInput } from './types.js';

/**
 * Compile-time checks of the input types derived from the contracts (`npm run typecheck` fails
 * when one of the `@ts-expect-error` lines stops being an error); the runtime part only keeps
 * jest happy.
 */
describe('input types', () => {
  it('take what a caller writes and refuse what the API would', () => {
    const minimal: CreateIntentInput = { chainId: 1, wallet: '0x1', tokenAddress: '0x2', bribe: 1n, buyAmount: '5', expiry: 1 };
    const full: CreateIntentInput = {
      ...minimal,
      minOut: 2n ** 200n,
      maxBuyTax: null,
      feeBps: 100,
      feeRecipient: '0x3',
      firstOrFail: true,
      notificationWebhookUrl: 'https://x',
    };
    // @ts-expect-error amounts are decimal strings or bigints, never numbers (a float would round them)
    const float: CreateIntentInput = { ...minimal, buyAmount: 1e18 };
    // @ts-expect-error expiry is required
    const noExpiry: CreateIntentInput = { chainId: 1, wallet: '0x1', tokenAddress: '0x2', bribe: '1', buyAmount: '5' };
    // @ts-expect-error a wallet intent has no signing webhook
    const walletHook: CreateWalletIntentInput = { ...minimal, nonce: 7n, signature: '0x', webhookUrl: 'https://x' };
    const wallet: CreateWalletIntentInput = { ...minimal, nonce: 7n, signature: '0x' };
    // @ts-expect-error statuses are the API's
    const badStatus: SearchIntentsInput = { addresses: ['0x1'], status: ['open'] };
    const search: SearchIntentsInput = { addresses: ['0x1'], status: ['pending', 'cancelled'], limit: 500, cursor: null };
    const entries: ListEntriesInput = { status: 'PENDING', chainId: 1, from: new Date(), limit: 10 };
    const amount: PayoutEntry['amount'] = '0.015';
    const sim: SimulateInput = { chainId: 1, blockNumber: 123n, calls: [{ from: '0x1', to: null, value: 10n ** 18n, gasLimit: '0x5208' }] };
    expect([minimal, full, float, noExpiry, walletHook, wallet, badStatus, search, entries, amount, sim]).toHaveLength(11);
  });
});
