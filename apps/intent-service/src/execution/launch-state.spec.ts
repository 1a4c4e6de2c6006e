import { Wallet } from 'ethers';
import { effectiveTip, withBalance } from './launch-state.js';

const GWEI = 10n ** 9n;
const signer = Wallet.createRandom();
const sign = (fields: Record<string, unknown>) => signer.signTransaction({ chainId: 1, nonce: 0, to: signer.address, gasLimit: 21_000n, ...fields });

describe('effectiveTip', () => {
  it('is the priority fee of a dynamic-fee transaction while its fee cap allows it', async () => {
    expect(effectiveTip(await sign({ type: 2, maxFeePerGas: 50n * GWEI, maxPriorityFeePerGas: 3n * GWEI }), 10n * GWEI)).toBe(3n * GWEI);
  });
  it('is what the fee cap leaves above the base fee when that is less, and never negative', async () => {
    const raw = await sign({ type: 2, maxFeePerGas: 12n * GWEI, maxPriorityFeePerGas: 5n * GWEI });
    expect(effectiveTip(raw, 10n * GWEI)).toBe(2n * GWEI);
    expect(effectiveTip(raw, 20n * GWEI)).toBe(0n);
  });
  it('is the gas price above the base fee for a legacy transaction', async () => {
    expect(effectiveTip(await sign({ type: 0, gasPrice: 7n * GWEI }), 4n * GWEI)).toBe(3n * GWEI);
  });
});

describe('withBalance', () => {
  it('funds the wallet on top of the state a launch left, whatever the case of its address there, keeping its other fields', () => {
    const wallet = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
    const state = {
      accounts: {
        '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed': { nonce: 4, balance: '0x1' },
        '0x00000000000000000000000000000000000000aa': { balance: '0x2' },
      },
      storage: { '0x00000000000000000000000000000000000000bb': { '0x01': `0x${'0'.repeat(63)}1` } },
    };
    expect(withBalance(state, wallet, 10n ** 18n)).toEqual({
      accounts: { '0x00000000000000000000000000000000000000aa': { balance: '0x2' }, [wallet]: { nonce: 4, balance: (10n ** 18n).toString() } },
      storage: state.storage,
    });
    expect(withBalance({}, wallet, 5n)).toEqual({ accounts: { [wallet]: { balance: '5' } } });
  });
});
