import { cleanMessage } from './call-runner.js';

describe('cleanMessage', () => {
  it('keeps the first sentence of an ethereumjs message, without the block or transaction dump', () => {
    expect(
      cleanMessage("sender doesn't have enough funds to send tx. The upfront cost is: 100 and the sender's balance is: 0 (block=1 hash=0x…) -> tx dump"),
    ).toBe("sender doesn't have enough funds to send tx. The upfront cost is: 100 and the sender's balance is: 0");
    expect(cleanMessage('invalid transaction -> {"nonce":"0x0"}')).toBe('invalid transaction');
    expect(cleanMessage('  plain  ')).toBe('plain');
  });
});
