import http from 'node:http';

export const USER = '0x00000000000000000000000000000000000000a1';
export const READER = '0x00000000000000000000000000000000000000c1';
export const LOOPER = '0x00000000000000000000000000000000000000c2';
/** Returns storage slot 1. */
const READ_SLOT_1 = '0x60015460005260206000f3';
/** 1000 JUMPDESTs then PUSH0 JUMP back to 0: ~1 gas per instruction, endless within 10^12 gas. */
const ENDLESS = `0x${'5b'.repeat(1000)}5f56`;
const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;
const word = (n: bigint | number) => `0x${BigInt(n).toString(16).padStart(64, '0')}`;

interface Account {
  balance?: bigint;
  nonce?: number;
  code?: string;
  storage?: Record<string, bigint>;
}

interface Call {
  id: unknown;
  method: string;
  params: unknown[];
}

const ACCOUNTS: Record<string, Account> = {
  [USER]: { balance: 10n ** 18n },
  [READER]: { code: READ_SLOT_1, storage: { 1: 5n } },
  [LOOPER]: { code: ENDLESS },
};

function answer({ method, params }: Call): unknown {
  const a = ACCOUNTS[String(params[0]).toLowerCase()] ?? {};
  switch (method) {
    case 'eth_getBlockByNumber':
      return {
        number: hex(100),
        hash: word(100_000_003n),
        timestamp: hex(1_790_000_000),
        gasLimit: hex(1_000_000_000_000),
        baseFeePerGas: '0x7',
        miner: '0x00000000000000000000000000000000000c0ffe',
        mixHash: word(0),
        difficulty: '0x0',
      };
    case 'eth_getBalance':
      return hex(a.balance ?? 0n);
    case 'eth_getTransactionCount':
      return hex(a.nonce ?? 0);
    case 'eth_getCode':
      return a.code ?? '0x';
    case 'eth_getStorageAt':
      return word(a.storage?.[BigInt(params[1] as string).toString()] ?? 0n);
    default:
      throw Object.assign(new Error(`the method ${method} does not exist`), { code: -32601 });
  }
}

/** The scripted node: one block (100), three accounts (a user, a storage reader, an endless loop). */
export function startScriptedNode(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as Call | Call[];
      const list = Array.isArray(parsed) ? parsed : [parsed];
      const out = list.map((c) => {
        try {
          return { jsonrpc: '2.0', id: c.id, result: answer(c) };
        } catch (err) {
          return { jsonrpc: '2.0', id: c.id, error: { code: (err as { code?: number }).code ?? -32000, message: (err as Error).message } };
        }
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
