import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { IntentRecord } from '@tradeinfra/contracts';
import { eventually, HardhatNode, LocalDex, LocalRelay, mined } from '@tradeinfra/test-support';
import { MaxUint256 } from 'ethers';
import { PendingLaunchWatcher } from '../../apps/intent-service/src/launch/pending/pending-launch-watcher.js';
import { Stack } from './harness.js';

export interface ReceivedNotification {
  id: string;
  /** Merkle's notification type (`intent_created`, …). */
  type: string;
  /** Our event name (`created`, `tx_pending`, …). */
  event: string;
  reason: string;
  data: Record<string, string | number>;
  intentId: string;
  status: string;
  statusReason: string | null;
  verified: boolean;
  /** The body exactly as delivered. */
  raw: string;
}

/** A notification webhook that verifies every notification's signature. */
export class NotificationSink {
  readonly received: ReceivedNotification[] = [];
  private server!: Server;
  url = '';

  constructor(private readonly secret: () => string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const timestamp = String(req.headers['x-notification-timestamp']);
        const expected = `v1=${createHmac('sha256', this.secret()).update(`${timestamp}.${body}`).digest('hex')}`;
        const event = JSON.parse(body) as {
          id: string;
          type: string;
          event: string;
          reason: string;
          data: Record<string, string | number>;
          intent: { id: string; status: string; statusReason: string | null };
        };
        this.received.push({
          id: event.id,
          type: event.type,
          event: event.event,
          reason: event.reason,
          data: event.data,
          raw: body,
          intentId: event.intent.id,
          status: event.intent.status,
          statusReason: event.intent.statusReason,
          verified: req.headers['x-notification-signature'] === expected && req.headers['x-notification-id'] === event.id,
        });
        res.writeHead(204);
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/events`;
    return this;
  }

  /** An intent's notifications in event order (ids are UUIDv7; deliveries run concurrently), first delivery of each. */
  for(intentId: string): ReceivedNotification[] {
    const seen = new Set<string>();
    return this.received.filter((n) => n.intentId === intentId && !seen.has(n.id) && seen.add(n.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * The whole product on the local chain 31337 (`dex` deployed on `node`), following its mempool
 * over the WebSocket, with the development signer holding `wallets`' keys; `extra` adds or
 * overrides settings.
 */
export function startMempoolStack(node: HardhatNode, dex: LocalDex, wallets: { privateKey: string }[], extra: Record<string, string> = {}): Promise<Stack> {
  return Stack.start({
    CHAIN_IDS: '31337',
    RPC_URL_31337: node.url,
    WS_URL_31337: node.url.replace('http', 'ws'),
    HARDFORK_31337: 'prague',
    DEX_FACTORY_31337: dex.factory,
    DEX_ROUTER_31337: dex.router,
    WRAPPED_NATIVE_31337: dex.weth,
    DEV_SIGNER_KEYS_31337: wallets.map((w) => w.privateKey).join(','),
    LAUNCH_POLL_INTERVAL_MS: '100',
    ...extra,
  });
}

/**
 * The exits' e2e set-up: hardhat 31337 (automine off), the DEX, a LocalRelay or none, the product
 * following the mempool (`env` added to its settings), and an API key.
 */
export interface ExitChain {
  node: HardhatNode;
  dex: LocalDex;
  relay: LocalRelay | null;
  stack: Stack;
  key: string;
}

export async function startExitChain(
  wallets: { privateKey: string }[],
  options: { relay: boolean; mempoolOrder?: 'fifo' | 'priority'; env?: Record<string, string> },
): Promise<ExitChain> {
  const node = await HardhatNode.start({ chainId: 31337, ...(options.mempoolOrder ? { mempoolOrder: options.mempoolOrder } : {}) });
  const dex = await LocalDex.deploy(node);
  await node.rpc.call('evm_setAutomine', [false]);
  const relay = options.relay ? await LocalRelay.start() : null;
  const stack = await startMempoolStack(node, dex, wallets, { ...(relay ? { RELAY_URLS_31337: relay.url } : {}), ...options.env });
  return { node, dex, relay, stack, key: await stack.createKey() };
}

export async function stopExitChain(chain: ExitChain | undefined): Promise<void> {
  await chain?.stack.close();
  await chain?.relay?.stop();
  await chain?.node.stop();
}

/**
 * Launches on a local chain that does not automine, as the execution tests drive them: launch
 * the token, wait until every intent is decided (terminal, or its buy in the node's mempool),
 * mine the next block, wait for the outcomes.
 */
export class LaunchDriver {
  constructor(
    private readonly stack: Stack,
    private readonly node: HardhatNode,
    private readonly dex: LocalDex,
    private readonly key: () => string,
    /** Tokens the launch adds to the pool. */
    private readonly tokens: bigint,
  ) {}

  /** Creates an intent on chain 31337 (no bribe, 0.01 ETH, an hour to live, no tip, unless `body` says otherwise); answers its record. */
  async create(body: Record<string, unknown>): Promise<IntentRecord> {
    const res = await this.stack.request<IntentRecord>('POST', '/v1/intent', {
      key: this.key(),
      body: { chainId: 31337, bribe: '0', buyAmount: (10n ** 16n).toString(), expiry: Math.floor(Date.now() / 1000) + 3600, gasTip: '0', ...body },
    });
    if (res.status !== 201) throw new Error(`POST /v1/intent: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A token of `supply` (PlainToken) its deployer has approved to the router. */
  async approvedToken(supply: bigint): Promise<string> {
    const token = await this.dex.deployToken('PlainToken', [supply]);
    await mined(this.node, this.dex.owner, token, this.dex.a.PlainToken!.iface.encodeFunctionData('approve', [this.dex.router, MaxUint256]));
    return token;
  }

  /** Resolves once every replica recognises a pending launch of `token` (it refreshed the tokens it watches since the intents were made). */
  async watchingPending(chainId: number, token: string): Promise<void> {
    await eventually(`pending launches of ${token} watched`, () => this.stack.intentReplicas.every((r) => r.get(PendingLaunchWatcher).watches(chainId, token)));
  }

  async get(id: string): Promise<IntentRecord> {
    return (await this.stack.request<IntentRecord>('GET', `/v1/intent/${id}`, { key: this.key() })).body;
  }

  /** Every intent is terminal, or its buy is in the node's mempool (marked submitted, then sent). */
  async decided(ids: string[]): Promise<boolean> {
    const rows = await this.stack.db.query<{ status: string; phase: string | null; tx_hash: string | null }>(
      'SELECT status, phase, tx_hash FROM intent.intents WHERE id = ANY($1::uuid[])',
      [ids],
    );
    for (const r of rows) {
      if (r.status !== 'pending') continue;
      if (r.phase !== 'submitted' || (await this.node.rpc.call('eth_getTransactionByHash', [r.tx_hash])) === null) return false;
    }
    return true;
  }

  async terminal(ids: string[]): Promise<boolean> {
    const rows = await this.stack.db.query<{ status: string }>('SELECT status FROM intent.intents WHERE id = ANY($1::uuid[])', [ids]);
    return rows.every((r) => r.status !== 'pending');
  }

  /** Launches `token` with `native` wei, settles the next block, and answers every intent's record. */
  async launchAndSettle(token: string, intents: IntentRecord[], native: bigint): Promise<Map<string, IntentRecord>> {
    const ids = intents.map((i) => i.id);
    await this.dex.launch(token, this.tokens, native);
    await eventually('every intent decided', () => this.decided(ids), 30_000);
    await this.node.rpc.call('evm_mine', []);
    await eventually('every outcome recorded', () => this.terminal(ids), 30_000);
    return new Map(await Promise.all(ids.map(async (id) => [id, await this.get(id)] as const)));
  }
}
