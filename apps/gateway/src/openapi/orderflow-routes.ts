import { JsonRpcBodySchema, JsonRpcReplySchema, MevStreamQuerySchema, RpcQuerySchema } from '@tradeinfra/contracts';
import { z } from 'zod';
import * as ex from './examples.js';
import { BODY_ERRORS, type RouteSpec } from './route-table.js';

const rpcExample = { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x02f8…'] };
const TX_HASH = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
const bundleExample = {
  jsonrpc: '2.0',
  id: 1,
  method: 'mev_sendBundle',
  params: [{ version: 'v0.1', inclusion: { block: '0x1406f40', maxBlock: '0x1406f4a' }, body: [{ hash: TX_HASH }, { tx: '0x02f8…', canRevert: false }] }],
};
const HINT = `data: ${JSON.stringify({ hash: TX_HASH, logs: [{ address: '0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc', topics: ['0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822'] }], txs: null })}\n\n`;

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
    responses: {
      200: {
        description: 'The JSON-RPC answer (or one per request of a batch)',
        schema: JsonRpcReplySchema,
        example: { jsonrpc: '2.0', id: 1, result: TX_HASH },
      },
    },
    errors: [...BODY_ERRORS, 404],
    errorExample: { status: 404, body: ex.NOT_FOUND('source', 'wallet-app') },
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
    responses: { 200: { description: 'An event stream', contentType: 'text/event-stream', schema: z.string(), example: HINT } },
    errors: [400, 429, 503],
    errorExample: {
      status: 429,
      body: { error: true, name: 'RateLimited', message: 'At most 10 hint streams per client address are open at once', details: null },
    },
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
    body: { schema: JsonRpcBodySchema, example: bundleExample },
    responses: {
      200: {
        description: 'The JSON-RPC answer',
        schema: JsonRpcReplySchema,
        example: { jsonrpc: '2.0', id: 1, result: { bundleHash: '0x8e3a1d3c6a6c2b1d4f9e1e2c0a6d7b8c9e0f1a2b3c4d5e6f708192a3b4c5d6e7' } },
      },
    },
    errors: [400, 401, 408, 413, 429, 503, 504],
    errorExample: {
      status: 401,
      body: {
        error: true,
        name: 'Unauthorized',
        message: 'Missing X-Flashbots-Signature: sign keccak256(body) with personal_sign and send <address>:<signature>',
        details: null,
      },
    },
  },
];
