import type { EVMResult, Message } from '@ethereumjs/evm';
import type { InternalTransfer } from '@tradeinfra/contracts';

/**
 * Native value moved inside one transaction, below its top-level call: CALL, CALLCODE,
 * CREATE/CREATE2 endowments and SELFDESTRUCT. Each frame collects its own transfers; a frame
 * that reverts drops them with its children's, a frame that returns hands them to its parent.
 * Order is call order (a frame's own transfer first, then what happened inside it).
 */
export class TransferTracker {
  private frames: { transfers: InternalTransfer[]; create: InternalTransfer | null }[] = [];
  private done: InternalTransfer[] = [];

  reset(): void {
    this.frames = [];
    this.done = [];
  }

  get transfers(): InternalTransfer[] {
    return this.done;
  }

  beforeMessage(message: Message): void {
    const frame = { transfers: [] as InternalTransfer[], create: null as InternalTransfer | null };
    if (message.depth > 0 && message.value > 0n && message.delegatecall !== true) {
      const from = message.caller.toString();
      const amount = `0x${message.value.toString(16)}`;
      if (message.to === undefined) {
        // CREATE/CREATE2: the new address is known when the frame ends.
        frame.create = { from, to: '', amount };
        frame.transfers.push(frame.create);
      } else {
        const callee = message.codeAddress ?? message.to;
        frame.transfers.push({ from, to: callee.toString(), amount });
      }
    }
    this.frames.push(frame);
  }

  afterMessage(result: EVMResult): void {
    const frame = this.frames.pop();
    if (!frame) return;
    if (result.execResult.exceptionError) return;
    if (frame.create) {
      if (!result.createdAddress) return;
      frame.create.to = result.createdAddress.toString();
    }
    const parent = this.frames[this.frames.length - 1];
    (parent ? parent.transfers : this.done).push(...frame.transfers);
  }

  /** SELFDESTRUCT of the running contract, sending its whole balance. */
  selfdestruct(from: string, to: string, amount: bigint): void {
    if (amount === 0n) return;
    this.frames[this.frames.length - 1]?.transfers.push({ from, to, amount: `0x${amount.toString(16)}` });
  }
}
