import { id } from 'ethers';
import { buildHint, resolveHints } from './hints.js';
import type { DecodedTx } from './transaction-checks.js';

const tx: DecodedTx = {
  raw: '0x02',
  hash: `0x${'ab'.repeat(32)}`,
  type: 2,
  chainId: 1n,
  from: `0x${'11'.repeat(20)}`,
  to: `0x${'22'.repeat(20)}`,
  nonce: 0,
  value: 10n ** 18n,
  data: '0x7ff36ab5' + '00'.repeat(64),
  gasLimit: 300_000n,
  maxFeePerGas: 1n,
};
const swap = { address: `0x${'33'.repeat(20)}`, topics: [id('Swap(address,uint256,uint256,uint256,uint256,address)'), `0x${'44'.repeat(32)}`], data: '0x1234' };
const transfer = { address: `0x${'55'.repeat(20)}`, topics: [id('Transfer(address,address,uint256)')], data: '0x99' };
const sim = { logs: [transfer, swap], gasUsed: '0x1d4c0' };

describe('hints', () => {
  it("shares MEV-Share's defaults when none are named: the hash and the swap's pool and event only", () => {
    expect(buildHint(tx, resolveHints(undefined), sim)).toEqual({ hash: tx.hash, logs: [{ address: swap.address, topics: [swap.topics[0]], data: '0x' }] });
  });

  it('shares the hash alone when only the hash is named (or nothing: the hash is always shared)', () => {
    expect(buildHint(tx, resolveHints(['hash']), sim)).toEqual({ hash: tx.hash });
    expect(buildHint(tx, resolveHints([]), sim)).toEqual({ hash: tx.hash });
  });

  it('shares each named field and nothing else', () => {
    expect(buildHint(tx, resolveHints(['function_selector']), sim)).toEqual({ hash: tx.hash, txs: [{ functionSelector: '0x7ff36ab5' }] });
    expect(buildHint(tx, resolveHints(['contract_address', 'value']), sim)).toEqual({ hash: tx.hash, txs: [{ to: tx.to, value: '0xde0b6b3a7640000' }] });
    expect(buildHint(tx, resolveHints(['logs', 'gas_used']), sim)).toEqual({ hash: tx.hash, logs: [transfer, swap], gasUsed: '0x1d4c0' });
    expect(buildHint(tx, resolveHints(['full']), sim)).toEqual({
      hash: tx.hash,
      txs: [{ to: tx.to, functionSelector: '0x7ff36ab5', callData: tx.data, value: '0xde0b6b3a7640000' }],
      logs: [transfer, swap],
      gasUsed: '0x1d4c0',
    });
  });

  it('leaves out what only a failed simulation could tell (logs, gas)', () => {
    expect(buildHint(tx, resolveHints(['logs', 'gas_used', 'calldata']), null)).toEqual({ hash: tx.hash, txs: [{ callData: tx.data }] });
  });
});
