// A signing thread of the bench's signing webhook (signer.ts): signs what the main thread posts.
import { parentPort, workerData } from 'node:worker_threads';
import type { UnsignedTransaction } from '@tradeinfra/contracts';
import { makeSigner, type SignedMessage } from './signer.js';

const sign = makeSigner((workerData as { keys: string[] }).keys);
parentPort!.on('message', ({ id, txs }: { id: number; txs: UnsignedTransaction[] }) => {
  const t0 = performance.now();
  let answer: SignedMessage;
  try {
    answer = { id, raws: txs.map(sign), signMs: performance.now() - t0 };
  } catch (err) {
    answer = { id, error: (err as Error).message, signMs: performance.now() - t0 };
  }
  parentPort!.postMessage(answer);
});
