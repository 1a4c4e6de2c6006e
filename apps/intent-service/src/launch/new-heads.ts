import type { Logger } from '@nestjs/common';
import { EthSubscription } from './eth-subscription.js';

/**
 * A `newHeads` subscription over WebSocket (`eth_subscribe`): calls `onHead` for every new block
 * the node announces, so the launch watcher reads a block the moment it exists instead of at its
 * next poll. Reconnects with backoff (1 s doubling to 30 s); polling stays as the safety net.
 */
export class NewHeads extends EthSubscription {
  constructor(url: string, onHead: (blockNumber: bigint) => void, logger: Pick<Logger, 'log' | 'warn'>) {
    super(
      url,
      ['newHeads'],
      (head) => {
        const number = (head as { number?: string }).number;
        if (number) onHead(BigInt(number));
      },
      logger,
    );
  }
}
