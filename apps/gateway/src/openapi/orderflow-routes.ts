import { JsonRpcBodySchema, JsonRpcReplySchema, MevStreamQuerySchema, RpcQuerySchema } from '@tradeinfra/contracts';
import { z } from 'zod';
import { BODY_ERRORS, type RouteSpec } from './route-table.js';

const rpcExample = { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x02f8…'] };

/** Order flow: wallets' private transactions, the MEV-Share hint stream, searchers' bundles (docs/orderflow.md). */
export const ORDERFLOW_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/rpc',
    summary: "A wallet's JSON-RPC endpoint: private transactions, credited to a source",
    description:
      '`eth_sendRawTransaction` and `eth_sendPrivateTransaction` (MEV-Share parameters: `tx`, `maxBlockNumber`, `preferences.privacy.hints`, `preferences.privacy.builders`) take a private transaction: ' +
      'decoded and checked (signature, chain, the sender’s next nonce, balance for value + gas limit × max fee, size, no blob transactions), simulated for its hints, auctioned to searchers and sent to the relays, never to the public mempool (unless `useMempool=true`, once past its maxBlockNumber). ' +
      'Read methods (eth_chainId, eth_call, eth_getTransactionCount, eth_estimateGas, eth_getTransactionReceipt, …) are forwarded to the chain’s node; other write methods are refused. ' +
      'The source must be registered to the key’s tenant; the key may come as `?key=` (an RPC URL carries no headers: give it the `rpc` scope only). ' +
      'Answers are JSON-RPC 2.0 (one per request of a batch), always with status 200; errors of the HTTP request itself (key, source, body) are the error object.',
    scope: 'rpc',
    query: RpcQuerySchema,
    body: { schema: JsonRpcBodySchema, example: rpcExample },
    responses: { 200: { description: 'The JSON-RPC answer (or one per request of a batch)', schema: JsonRpcReplySchema } },
    errors: [...BODY_ERRORS, 404],
  },
  {
    method: 'get',
    path: '/v1/mev/stream',
    summary: 'The hint stream of pending private transactions (MEV-Share’s event stream), public',
    description:
      'Server-sent events without a name (`data:` one hint as JSON: `hash` always, then `logs`, `txs[0].to/functionSelector/callData/value`, `gasUsed` as the sender allowed), `:ping` every 15 s. ' +
      'What `@flashbots/mev-share-client` reads with `on("transaction", …)` (its network’s `streamUrl`). No key (EventSource sends no headers); at most MEV_STREAMS_PER_ADDRESS open per client address.',
    scope: null,
    query: MevStreamQuerySchema,
    responses: { 200: { description: 'An event stream', contentType: 'text/event-stream', schema: z.string() } },
    errors: [400, 429, 503],
  },
  {
    method: 'post',
    path: '/v1/mev',
    summary: 'Searchers: mev_sendBundle and mev_simBundle (MEV-Share v0.1)',
    description:
      'Authenticated by `X-Flashbots-Signature: <address>:<personal_sign(keccak256(body))>` (as `@flashbots/mev-share-client` signs); the address is the searcher, rate-limited per address (MEV_RATE_LIMIT_*). ' +
      '`body[0]` must be `{hash}` of a pending private transaction, the rest `{tx, canRevert}`. A bid is native value the backrun pays the chain’s beneficiary; a bundle that reverts where `canRevert` is false, pays nothing, or changes the target’s outcome is refused. ' +
      'Answers are JSON-RPC 2.0 with status 200: `{bundleHash}`, or MEV-Share’s simulation result.',
    scope: null,
    body: { schema: JsonRpcBodySchema },
    responses: { 200: { description: 'The JSON-RPC answer', schema: JsonRpcReplySchema } },
    errors: [400, 401, 408, 413, 429, 503, 504],
  },
];
