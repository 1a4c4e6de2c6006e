import { AbiCoder, MaxUint256, getCreate2Address, getCreateAddress, id, keccak256, sha256 } from 'ethers';
import { APPROVED_TRADERS, E18, FEE_BPS, POOLS, TRADER_TOKENS, TRADER_WETH, UNAPPROVED_TRADERS, erc20BalanceSlot, word, type Deployment } from './contracts.js';
import type { Bundle, CallOutcome, CaseCall, Transfer } from './reference.js';

/**
 * One differential case. Cases are generated before anything is deployed (jest collects tests
 * synchronously), so a case holds its random parameters and builds its bundle from the
 * deployment's addresses when it runs.
 */
export interface CaseSpec {
  name: string;
  group: string;
  build(d: Deployment): Bundle;
  /** Nonce-mismatch cases: the request must fail with 400 and this message; the node is not used. */
  rejects?(d: Deployment): string;
  /** Checks that the node's outcome is what the case is about (guards the reference itself). */
  check?(calls: CallOutcome[], d: Deployment): void;
  /** How the request names block N: `blockNumber` (default), `block_number`, or not at all (latest = N). */
  block?: BlockParam;
}

export type BlockParam = 'blockNumber' | 'block_number' | 'latest';

// ---------------------------------------------------------------------------------------------
// Seeded PRNG

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    bool: (p = 0.5) => next() < p,
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    /** A bigint in [lo, hi]. */
    big: (lo: bigint, hi: bigint) => {
      let r = 0n;
      for (let i = 0; i < 4; i++) r = (r << 32n) | BigInt(Math.floor(next() * 4294967296));
      return lo + (r % (hi - lo + 1n));
    },
    hex: (bytes: number) => '0x' + Array.from({ length: bytes }, () => int(0, 255).toString(16).padStart(2, '0')).join(''),
    address: () => '0x' + Array.from({ length: 20 }, () => int(0, 255).toString(16).padStart(2, '0')).join(''),
  };
}
type Rng = ReturnType<typeof prng>;

// ---------------------------------------------------------------------------------------------
// Helpers

const enc = (d: Deployment, contract: string, fn: string, args: unknown[] = []) => d.artifacts[contract].iface.encodeFunctionData(fn, args);
const deployData = (d: Deployment, contract: string, args: unknown[] = []) =>
  d.artifacts[contract].bytecode + d.artifacts[contract].iface.encodeDeploy(args).slice(2);
const DEADLINE = 2n ** 40n;
const eth = (milli: number) => (BigInt(milli) * E18) / 1000n;
const fmt = (wei: bigint) => {
  const s = (Number(wei / 10n ** 12n) / 1e6).toString();
  return s.length > 10 ? s.slice(0, 10) : s;
};
const short = (a: string) => a.slice(0, 8);

const TOPIC = {
  transfer: id('Transfer(address,address,uint256)'),
  approval: id('Approval(address,address,uint256)'),
  swap: id('Swap(address,uint256,uint256,uint256,uint256,address)'),
  mint: id('Mint(address,uint256,uint256)'),
  burn: id('Burn(address,uint256,uint256,address)'),
  pairCreated: id('PairCreated(address,address,address,uint256)'),
  received: id('Received(address,uint256)'),
  born: id('Born(address,uint256,uint256)'),
  incremented: id('Incremented(address,uint256)'),
};

function fail(msg: string): never {
  throw new Error(`reference check: ${msg}`);
}

const checks = {
  status:
    (...expected: Array<0 | 1>) =>
    (calls: CallOutcome[]) => {
      const got = calls.map((c) => c.status);
      if (got.join() !== expected.join()) fail(`statuses ${got.join()} expected ${expected.join()}`);
    },
  event:
    (call: number, topic: string, min = 1) =>
    (calls: CallOutcome[]) => {
      const n = calls[call].logs.filter((l) => l.topics[0] === topic).length;
      if (n < min) fail(`call #${call}: ${n} logs with topic ${topic.slice(0, 10)}, expected at least ${min}`);
    },
  transfers: (call: number, expected: (d: Deployment) => Transfer[]) => (calls: CallOutcome[], d: Deployment) => {
    const norm = (ts: Transfer[]) => ts.map((t) => `${t.from.toLowerCase()}->${t.to.toLowerCase()}:${t.amount}`).join(', ');
    const got = norm(calls[call].internalTransfers);
    const want = norm(expected(d));
    if (got !== want) fail(`call #${call}: transfers [${got}] expected [${want}]`);
  },
  resultPrefix: (call: number, prefix: string) => (calls: CallOutcome[]) => {
    if (!calls[call].result.startsWith(prefix.toLowerCase())) fail(`call #${call}: result ${calls[call].result.slice(0, 20)} expected ${prefix}…`);
  },
  all:
    (...cs: Array<(calls: CallOutcome[], d: Deployment) => void>) =>
    (calls: CallOutcome[], d: Deployment) => {
      for (const c of cs) c(calls, d);
    },
};

const ERROR_SELECTOR = id('Error(string)').slice(0, 10);
const PANIC_SELECTOR = id('Panic(uint256)').slice(0, 10);

/** Case list under construction; names get a running number per group. */
class Cases {
  readonly list: CaseSpec[] = [];
  private readonly counts = new Map<string, number>();

  add(group: string, label: string, build: CaseSpec['build'], check?: CaseSpec['check'], rejects?: CaseSpec['rejects'], block?: BlockParam): void {
    const n = (this.counts.get(group) ?? 0) + 1;
    this.counts.set(group, n);
    this.list.push({ name: `${group} #${String(n).padStart(2, '0')}: ${label}`, group, build, check, rejects, ...(block ? { block } : {}) });
  }
}

// ---------------------------------------------------------------------------------------------
// Generators per group

function erc20(c: Cases, r: Rng): void {
  const tokens = ['tokenA', 'tokenB', 'tokenC'] as const;
  const allTraders = [...APPROVED_TRADERS, ...UNAPPROVED_TRADERS];
  for (let i = 0; i < 8; i++) {
    const t = r.pick(tokens);
    const from = r.pick(allTraders);
    const toFresh = r.bool();
    const fresh = r.address();
    const other = r.pick(allTraders.filter((x) => x !== from));
    const amount = r.big(1n, TRADER_TOKENS);
    c.add(
      'erc20',
      `transfer ${fmt(amount)} ${t} trader${from} → ${toFresh ? short(fresh) : `trader${other}`}`,
      (d) => ({
        calls: [{ from: d.accounts[from], to: d[t], data: enc(d, 'TestToken', 'transfer', [toFresh ? fresh : d.accounts[other], amount]) }],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.transfer)),
    );
  }
  for (let i = 0; i < 3; i++) {
    const t = r.pick(tokens);
    const from = r.pick(allTraders);
    const amount = TRADER_TOKENS + r.big(1n, 10n ** 24n);
    const to = r.address();
    c.add(
      'erc20',
      `transfer ${fmt(amount)} ${t} above balance reverts (ERC20InsufficientBalance)`,
      (d) => ({
        calls: [{ from: d.accounts[from], to: d[t], data: enc(d, 'TestToken', 'transfer', [to, amount]) }],
      }),
      checks.all(checks.status(0), checks.resultPrefix(0, id('ERC20InsufficientBalance(address,uint256,uint256)').slice(0, 10))),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = r.address();
    const to = r.address();
    c.add(
      'erc20',
      `transfer from empty fresh account ${short(sender)} reverts`,
      (d) => ({
        calls: [{ from: sender, to: d.tokenA, data: enc(d, 'TestToken', 'transfer', [to, 1n]) }],
      }),
      checks.status(0),
    );
  }
  for (let i = 0; i < 3; i++) {
    const owner = r.pick(allTraders);
    const spender = r.address();
    const amount = r.bool() ? MaxUint256 : r.big(1n, 10n ** 30n);
    const t = r.pick(tokens);
    c.add(
      'erc20',
      `approve ${t} trader${owner} → ${short(spender)}`,
      (d) => ({
        calls: [{ from: d.accounts[owner], to: d[t], data: enc(d, 'TestToken', 'approve', [spender, amount]) }],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.approval)),
    );
  }
  for (let i = 0; i < 6; i++) {
    const owner = r.pick(allTraders);
    const spender = r.bool() ? r.address() : null;
    const spenderIdx = r.pick(allTraders.filter((x) => x !== owner));
    const recipient = r.address();
    const allowance = r.big(10n ** 18n, 10n ** 22n);
    const variant = i % 3; // 0: within allowance, 1: above allowance, 2: two pulls, the second above what is left
    const first = variant === 1 ? allowance + 1n : allowance / 2n;
    const t = r.pick(tokens);
    const label = ['within allowance', 'above allowance reverts', 'second pull exceeds the rest'][variant];
    c.add(
      'erc20',
      `approve + transferFrom ${t} ${label}`,
      (d) => {
        const sp = spender ?? d.accounts[spenderIdx];
        const calls: CaseCall[] = [
          { from: d.accounts[owner], to: d[t], data: enc(d, 'TestToken', 'approve', [sp, allowance]) },
          { from: sp, to: d[t], data: enc(d, 'TestToken', 'transferFrom', [d.accounts[owner], recipient, first]) },
        ];
        if (variant === 2)
          calls.push({ from: sp, to: d[t], data: enc(d, 'TestToken', 'transferFrom', [d.accounts[owner], recipient, allowance - first + 1n]) });
        return { calls };
      },
      checks.status(
        ...(
          [
            [1, 1],
            [1, 0],
            [1, 1, 0],
          ] as Array<Array<0 | 1>>
        )[variant],
      ),
    );
  }
  for (let i = 0; i < 2; i++) {
    const owner = r.pick(allTraders);
    const spender = r.pick(allTraders.filter((x) => x !== owner));
    c.add(
      'erc20',
      `transferFrom without allowance reverts (ERC20InsufficientAllowance)`,
      (d) => ({
        calls: [{ from: d.accounts[spender], to: d.tokenB, data: enc(d, 'TestToken', 'transferFrom', [d.accounts[owner], d.accounts[spender], E18]) }],
      }),
      checks.status(0),
    );
  }
  for (let i = 0; i < 3; i++) {
    const from = r.pick(allTraders);
    const to = r.address();
    const amount = r.big(1000n, TRADER_TOKENS);
    c.add(
      'erc20',
      `fee token transfer ${fmt(amount)} (${FEE_BPS} bps to feeTo)`,
      (d) => ({
        calls: [{ from: d.accounts[from], to: d.feeToken, data: enc(d, 'FeeToken', 'transfer', [to, amount]) }],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.transfer, 2)),
    );
  }
  for (let i = 0; i < 3; i++) {
    const who = r.pick(allTraders);
    const amount = eth(r.int(1, 5000));
    const to = r.address();
    c.add(
      'erc20',
      `WETH deposit ${fmt(amount)} → transfer → withdraw`,
      (d) => ({
        calls: [
          { from: d.accounts[who], to: d.weth, data: enc(d, 'WETH9', 'deposit'), value: amount },
          { from: d.accounts[who], to: d.weth, data: enc(d, 'WETH9', 'transfer', [to, amount / 3n]) },
          { from: d.accounts[who], to: d.weth, data: enc(d, 'WETH9', 'withdraw', [amount - amount / 3n + TRADER_WETH / 2n]) },
        ],
      }),
      checks.all(
        checks.status(1, 1, 1),
        checks.transfers(2, (d) => [{ from: d.weth, to: d.accounts[who], amount: amount - amount / 3n + TRADER_WETH / 2n }]),
      ),
    );
  }
}

function uniswap(c: Cases, r: Rng): void {
  const swapChecks = (n: number) => checks.all(checks.status(...Array<1>(n).fill(1)), ...Array.from({ length: n }, (_, i) => checks.event(i, TOPIC.swap)));
  const trader = () => r.pick(APPROVED_TRADERS);
  for (let i = 0; i < 6; i++) {
    const who = trader();
    const t = r.pick(['tokenA', 'tokenB', 'feeToken'] as const);
    const value = eth(r.int(1, 5000));
    const recipient = r.bool() ? r.address() : null;
    c.add(
      'uniswap',
      `swapExactETHForTokens ${fmt(value)} ETH → ${t}`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'swapExactETHForTokens', [0, [d.weth, d[t]], recipient ?? d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(
        swapChecks(1),
        checks.transfers(0, (d) => [{ from: d.router, to: d.weth, amount: value }]),
      ),
    );
  }
  for (let i = 0; i < 5; i++) {
    const who = trader();
    const t = r.pick(['tokenA', 'tokenB'] as const);
    const amountIn = r.big(E18, 5_000n * E18);
    c.add(
      'uniswap',
      `swapExactTokensForETH ${fmt(amountIn)} ${t} → ETH`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForETH', [amountIn, 0, [d[t], d.weth], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      swapChecks(1),
    );
  }
  for (let i = 0; i < 6; i++) {
    const who = trader();
    const multihop = i % 2 === 1;
    const [from, to] = r.pick([
      ['tokenA', 'tokenB'],
      ['tokenB', 'tokenA'],
    ] as const);
    const amountIn = r.big(E18, 20_000n * E18);
    c.add(
      'uniswap',
      `swapExactTokensForTokens ${fmt(amountIn)} ${from} → ${to}${multihop ? ' via WETH' : ''}`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForTokens', [
              amountIn,
              0,
              multihop ? [d[from], d.weth, d[to]] : [d[from], d[to]],
              d.accounts[who],
              DEADLINE,
            ]),
          },
        ],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.swap, multihop ? 2 : 1)),
    );
  }
  for (let i = 0; i < 5; i++) {
    const who = trader();
    const out = r.big(E18, 10_000n * E18);
    const tight = i >= 3;
    c.add(
      'uniswap',
      `swapTokensForExactTokens ${fmt(out)} TKB for TKA${tight ? ', amountInMax too low reverts (EXCESSIVE_INPUT_AMOUNT)' : ''}`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapTokensForExactTokens', [
              out,
              tight ? out / 3n : MaxUint256,
              [d.tokenA, d.tokenB],
              d.accounts[who],
              DEADLINE,
            ]),
          },
        ],
      }),
      tight ? checks.all(checks.status(0), checks.resultPrefix(0, ERROR_SELECTOR)) : swapChecks(1),
    );
  }
  for (let i = 0; i < 3; i++) {
    const who = trader();
    const out = r.big(E18, 5_000n * E18);
    const value = 10n * E18; // far more than needed: the router refunds the rest
    c.add(
      'uniswap',
      `swapETHForExactTokens ${fmt(out)} TKA with refund`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'swapETHForExactTokens', [out, [d.weth, d.tokenA], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(swapChecks(1), (calls) => {
        if (calls[0].internalTransfers.length !== 2) fail('expected deposit and refund transfers');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = trader();
    const out = eth(r.int(10, 3000));
    c.add(
      'uniswap',
      `swapTokensForExactETH ${fmt(out)} ETH from TKB`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapTokensForExactETH', [out, MaxUint256, [d.tokenB, d.weth], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      swapChecks(1),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = trader();
    const amountIn = r.big(E18, 5_000n * E18);
    c.add(
      'uniswap',
      `swapExactTokensForTokensSupportingFeeOnTransferTokens ${fmt(amountIn)} FEE → WETH → TKA`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForTokensSupportingFeeOnTransferTokens', [
              amountIn,
              0,
              [d.feeToken, d.weth, d.tokenA],
              d.accounts[who],
              DEADLINE,
            ]),
          },
        ],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.swap, 2)),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = trader();
    const value = eth(r.int(1, 3000));
    c.add(
      'uniswap',
      `swapExactETHForTokensSupportingFeeOnTransferTokens ${fmt(value)} ETH → FEE`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'swapExactETHForTokensSupportingFeeOnTransferTokens', [0, [d.weth, d.feeToken], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      swapChecks(1),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = trader();
    const amountIn = r.big(E18, 5_000n * E18);
    c.add(
      'uniswap',
      `swapExactTokensForETHSupportingFeeOnTransferTokens ${fmt(amountIn)} FEE → ETH`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForETHSupportingFeeOnTransferTokens', [
              amountIn,
              0,
              [d.feeToken, d.weth],
              d.accounts[who],
              DEADLINE,
            ]),
          },
        ],
      }),
      swapChecks(1),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = trader();
    const amountIn = r.big(100n * E18, 5_000n * E18);
    c.add(
      'uniswap',
      `swapExactTokensForETH on the fee token without the supporting variant reverts (UniswapV2: K)`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForETH', [amountIn, 0, [d.feeToken, d.weth], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(checks.status(0), checks.resultPrefix(0, ERROR_SELECTOR)),
    );
  }
  for (let i = 0; i < 3; i++) {
    const who = trader();
    const value = eth(r.int(1, 1000));
    c.add(
      'uniswap',
      `expired deadline reverts (UniswapV2Router: EXPIRED)`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'swapExactETHForTokens', [0, [d.weth, d.tokenA], d.accounts[who], d.timestamp - 1]),
          },
        ],
      }),
      checks.all(checks.status(0), checks.resultPrefix(0, ERROR_SELECTOR)),
    );
  }
  for (let i = 0; i < 3; i++) {
    const who = trader();
    const amountIn = r.big(E18, 1_000n * E18);
    c.add(
      'uniswap',
      `slippage: amountOutMin too high reverts (INSUFFICIENT_OUTPUT_AMOUNT)`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForTokens', [amountIn, amountIn * 3n, [d.tokenA, d.tokenB], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.status(0),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = r.pick(UNAPPROVED_TRADERS);
    c.add(
      'uniswap',
      `swap without router approval reverts (TRANSFER_FROM_FAILED)`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForETH', [E18, 0, [d.tokenA, d.weth], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.status(0),
    );
  }
  for (let i = 0; i < 3; i++) {
    const who = r.pick(UNAPPROVED_TRADERS);
    const amountIn = r.big(E18, 10_000n * E18);
    c.add(
      'uniswap',
      `approve then swap TKA → ETH in one bundle`,
      (d) => ({
        calls: [
          { from: d.accounts[who], to: d.tokenA, data: enc(d, 'TestToken', 'approve', [d.router, amountIn]) },
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForETH', [amountIn, 0, [d.tokenA, d.weth], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(checks.status(1, 1), checks.event(1, TOPIC.swap)),
    );
  }
  for (let i = 0; i < 4; i++) {
    const who = trader();
    const other = trader();
    const value = eth(r.int(100, 20000));
    const back = r.big(E18, 1000n * E18);
    c.add(
      'uniswap',
      `sequential swaps: ETH → TKA, TKA → TKB, TKB → ETH (reserves move)`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'swapExactETHForTokens', [0, [d.weth, d.tokenA], d.accounts[who], DEADLINE]),
          },
          {
            from: d.accounts[other],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForTokens', [back, 0, [d.tokenA, d.tokenB], d.accounts[other], DEADLINE]),
          },
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForETH', [back, 0, [d.tokenB, d.weth], d.accounts[who], DEADLINE]),
          },
        ],
      }),
      swapChecks(3),
    );
  }
}

function liquidity(c: Cases, r: Rng): void {
  const trader = () => r.pick(APPROVED_TRADERS);
  for (let i = 0; i < 3; i++) {
    const who = trader();
    const a = r.big(E18, 10_000n * E18);
    c.add(
      'liquidity',
      `addLiquidity TKA/TKB ${fmt(a)} TKA`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'addLiquidity', [d.tokenA, d.tokenB, a, a * 3n, 0, 0, d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.mint)),
    );
  }
  for (let i = 0; i < 3; i++) {
    const who = trader();
    const tokens = r.big(E18, 1_000n * E18);
    const value = (tokens * POOLS.bWeth.eth) / POOLS.bWeth.token + eth(r.int(1, 2000)); // more ETH than needed: refund
    c.add(
      'liquidity',
      `addLiquidityETH TKB with ETH refund`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'addLiquidityETH', [d.tokenB, tokens, 0, 0, d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.mint), (calls) => {
        if (calls[0].internalTransfers.length !== 2) fail('expected deposit and refund');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const lp = r.big(E18, 1_000n * E18);
    c.add(
      'liquidity',
      `removeLiquidity TKA/TKB ${fmt(lp)} LP by the pool owner`,
      (d) => ({
        calls: [
          { from: d.accounts[0], to: d.router, data: enc(d, 'UniswapV2Router02', 'removeLiquidity', [d.tokenA, d.tokenB, lp, 0, 0, d.accounts[0], DEADLINE]) },
        ],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.burn)),
    );
  }
  for (let i = 0; i < 2; i++) {
    const lp = r.big(E18, 1_000n * E18);
    const to = r.address();
    c.add(
      'liquidity',
      `removeLiquidityETH TKA ${fmt(lp)} LP to a fresh address`,
      (d) => ({
        calls: [{ from: d.accounts[0], to: d.router, data: enc(d, 'UniswapV2Router02', 'removeLiquidityETH', [d.tokenA, lp, 0, 0, to, DEADLINE]) }],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.burn)),
    );
  }
  c.add(
    'liquidity',
    `removeLiquidityETHSupportingFeeOnTransferTokens FEE`,
    (d) => ({
      calls: [
        {
          from: d.accounts[0],
          to: d.router,
          data: enc(d, 'UniswapV2Router02', 'removeLiquidityETHSupportingFeeOnTransferTokens', [d.feeToken, 500n * E18, 0, 0, d.accounts[0], DEADLINE]),
        },
      ],
    }),
    checks.status(1),
  );
  c.add(
    'liquidity',
    `removeLiquidity with amountAMin too high reverts (INSUFFICIENT_A_AMOUNT)`,
    (d) => ({
      calls: [
        {
          from: d.accounts[0],
          to: d.router,
          data: enc(d, 'UniswapV2Router02', 'removeLiquidity', [d.tokenA, d.tokenB, E18, 10n ** 30n, 0, d.accounts[0], DEADLINE]),
        },
      ],
    }),
    checks.status(0),
  );
  for (let i = 0; i < 2; i++) {
    const who = trader();
    c.add(
      'liquidity',
      `add TKA/TKB liquidity, approve LP, remove part of it`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'addLiquidity', [d.tokenA, d.tokenB, 1000n * E18, 2000n * E18, 0, 0, d.accounts[who], DEADLINE]),
          },
          { from: d.accounts[who], to: d.pairs.aB, data: enc(d, 'UniswapV2Pair', 'approve', [d.router, MaxUint256]) },
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'removeLiquidity', [d.tokenA, d.tokenB, 1000n * E18, 0, 0, d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(checks.status(1, 1, 1), checks.event(2, TOPIC.burn)),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = trader();
    const value = eth(r.int(100, 5000));
    c.add(
      'liquidity',
      `addLiquidityETH creates the TKC/WETH pair (CREATE2 in the factory)`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'addLiquidityETH', [d.tokenC, 1000n * E18, 0, 0, d.accounts[who], DEADLINE]),
          },
        ],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.pairCreated)),
    );
  }
  c.add(
    'liquidity',
    `addLiquidity creates the TKA/TKC pair, then a swap through it`,
    (d) => ({
      calls: [
        {
          from: d.accounts[1],
          to: d.router,
          data: enc(d, 'UniswapV2Router02', 'addLiquidity', [d.tokenA, d.tokenC, 5000n * E18, 7000n * E18, 0, 0, d.accounts[1], DEADLINE]),
        },
        {
          from: d.accounts[2],
          to: d.router,
          data: enc(d, 'UniswapV2Router02', 'swapExactTokensForTokens', [10n * E18, 0, [d.tokenC, d.tokenA], d.accounts[2], DEADLINE]),
        },
      ],
    }),
    checks.all(checks.status(1, 1), checks.event(1, TOPIC.swap)),
  );
}

function reverts(c: Cases, r: Rng): void {
  const sender = () => r.pick([...APPROVED_TRADERS, ...UNAPPROVED_TRADERS]);
  const R = (label: string, fn: string, args: unknown[], status: 0 | 1, prefix?: string, gas?: bigint) => {
    const who = sender();
    c.add(
      'reverts',
      label,
      (d) => ({ calls: [{ from: d.accounts[who], to: d.reverter, data: enc(d, 'Reverter', fn, args), gas }] }),
      prefix ? checks.all(checks.status(status), checks.resultPrefix(0, prefix)) : checks.status(status),
    );
  };
  for (let i = 0; i < 2; i++) {
    const v = r.int(10, 1_000_000);
    R(`require(v < 10) with ${v}: Error(string)`, 'requireSmall', [v], 0, ERROR_SELECTOR);
  }
  R(`require passes: returns 2v`, 'requireSmall', [r.int(0, 9)], 1);
  R(`division by zero: Panic(0x12)`, 'divide', [r.int(1, 1000), 0], 0, PANIC_SELECTOR);
  R(`division ok`, 'divide', [r.int(1000, 100000), r.int(1, 999)], 1);
  R(`checked overflow: Panic(0x11)`, 'add', [MaxUint256 - BigInt(r.int(0, 5)), 10n], 0, PANIC_SELECTOR);
  R(`assert(false): Panic(0x01)`, 'checkNot7', [7], 0, PANIC_SELECTOR);
  R(`array index out of bounds: Panic(0x32)`, 'index', [r.int(0, 5)], 0, PANIC_SELECTOR);
  for (let i = 0; i < 2; i++) R(`custom error Custom(uint256,address)`, 'custom', [r.int(0, 1e9)], 0, id('Custom(uint256,address)').slice(0, 10));
  R(`custom error without arguments Bare()`, 'bare', [], 0, id('Bare()').slice(0, 10));
  R(`empty revert`, 'empty', [], 0);
  for (let i = 0; i < 2; i++) {
    const data = r.hex(r.int(1, 100));
    R(`raw revert data (${(data.length - 2) / 2} bytes)`, 'raw', [data], 0, data);
  }
  R(`write, log, then revert: logs dropped`, 'writeThenRevert', [r.int(1, 1e6)], 0, ERROR_SELECTOR);
  R(`INVALID opcode consumes all gas`, 'invalidOp', [], 0);
  R(`out of gas in a loop (gas 300000)`, 'exhaust', [], 0, undefined, 300_000n);
  R(`inner revert caught with try/catch`, 'catchInner', [r.int(1, 1e6)], 1);
  for (let i = 0; i < 3; i++) {
    const data = r.hex(r.int(0, 300));
    R(`echo ${(data.length - 2) / 2} bytes of return data`, 'echo', [data], 1);
  }
  {
    const who = sender();
    const to = r.address();
    c.add(
      'reverts',
      `token transfer with gas 30000 runs out of gas`,
      (d) => ({
        calls: [{ from: d.accounts[who], to: d.tokenA, gas: 30_000n, data: enc(d, 'TestToken', 'transfer', [to, 1n]) }],
      }),
      checks.status(0),
    );
  }
  {
    const who = sender();
    c.add(
      'reverts',
      `revert in call 1 does not undo call 0 (write then writeThenRevert)`,
      (d) => ({
        calls: [
          { from: d.accounts[who], to: d.reverter, data: enc(d, 'Reverter', 'write', [111]) },
          { from: d.accounts[who], to: d.reverter, data: enc(d, 'Reverter', 'writeThenRevert', [222]) },
          { from: d.accounts[who], to: d.reverter, data: enc(d, 'Reverter', 'stored') },
        ],
      }),
      checks.all(checks.status(1, 0, 1), (calls) => {
        if (BigInt(calls[2].result) !== 111n) fail('stored should be 111');
      }),
    );
  }
  {
    const who = sender();
    c.add(
      'reverts',
      `call with a selector the contract lacks reverts (no fallback)`,
      (d) => ({
        calls: [{ from: d.accounts[who], to: d.reverter, data: '0xdeadbeef' }],
      }),
      checks.status(0),
    );
  }
}

function nestedValue(c: Cases, r: Rng): void {
  const who = () => r.pick([...APPROVED_TRADERS, ...UNAPPROVED_TRADERS]);
  // fanOut from forwarder0 (funded with 10 ETH) to a mix of targets
  for (let i = 0; i < 8; i++) {
    const sender = who();
    const n = r.int(1, 5);
    const kinds = Array.from({ length: n }, () => r.pick(['eoa', 'sink', 'rejecter', 'forwarder1', 'precompile'] as const));
    const eoas = kinds.map(() => r.address());
    const amounts = kinds.map(() => (r.bool(0.15) ? 0n : eth(r.int(1, 3000))));
    const value = r.bool() ? eth(r.int(0, 2000)) : 0n;
    const overdraw = i === 7; // asks for more than forwarder0 holds: that call fails without a frame
    if (overdraw) amounts[0] = 50n * E18;
    c.add(
      'nested-value',
      `fanOut ${value ? `with ${fmt(value)} ETH ` : ''}to ${kinds.join(', ')}${overdraw ? ' (first above balance)' : ''}`,
      (d) => {
        const target = (k: (typeof kinds)[number], j: number) =>
          ({ eoa: eoas[j], sink: d.sink, rejecter: d.rejecter, forwarder1: d.forwarders[1], precompile: '0x0000000000000000000000000000000000000004' })[k];
        return { calls: [{ from: d.accounts[sender], to: d.forwarders[0], value, data: enc(d, 'Forwarder', 'fanOut', [kinds.map(target), amounts]) }] };
      },
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => {
          const out: Transfer[] = [];
          let balance = d.funded.forwarder0 + value;
          kinds.forEach((k, j) => {
            const to = {
              eoa: eoas[j],
              sink: d.sink,
              rejecter: d.rejecter,
              forwarder1: d.forwarders[1],
              precompile: '0x0000000000000000000000000000000000000004',
            }[k];
            if (k === 'rejecter' || amounts[j] === 0n || amounts[j] > balance) return;
            balance -= amounts[j];
            out.push({ from: d.forwarders[0], to, amount: amounts[j] });
          });
          return out;
        }),
      ),
    );
  }
  // viaTry: forwarder0 → inner.relay{value} (inner may revert, undoing its own sends)
  for (let i = 0; i < 6; i++) {
    const sender = who();
    const fail = i % 2 === 0;
    const inner = r.int(1, 2);
    const sends = r.int(1, 3);
    const eoas = Array.from({ length: sends }, () => r.address());
    const amounts = eoas.map(() => eth(r.int(1, 300)));
    const value = amounts.reduce((a, b) => a + b, 0n) + eth(r.int(0, 100));
    c.add(
      'nested-value',
      `try inner relay of ${fmt(value)} ETH to ${sends} EOAs${fail ? ', inner reverts (caught)' : ''}`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.forwarders[0], data: enc(d, 'Forwarder', 'viaTry', [d.forwarders[inner], value, eoas, amounts, fail]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) =>
          fail
            ? []
            : [
                { from: d.forwarders[0], to: d.forwarders[inner], amount: value },
                ...eoas.map((e, j) => ({ from: d.forwarders[inner], to: e, amount: amounts[j] })),
              ],
        ),
      ),
    );
  }
  // hop along a chain of forwarders
  for (let i = 0; i < 6; i++) {
    const sender = who();
    const len = r.int(0, 2);
    const amount = eth(r.int(1, 5000));
    const toRejecter = i === 5;
    const eoa = r.address();
    c.add(
      'nested-value',
      `hop ${fmt(amount)} ETH through ${len + 1} forwarders to ${toRejecter ? 'a rejecter (all revert)' : 'an EOA'}`,
      (d) => {
        const path = [d.forwarders[1], d.forwarders[2]].slice(0, len);
        return {
          calls: [
            { from: d.accounts[sender], to: d.forwarders[0], value: amount, data: enc(d, 'Forwarder', 'hop', [path, toRejecter ? d.rejecter : eoa, amount]) },
          ],
        };
      },
      checks.status(toRejecter ? 0 : 1),
    );
  }
  for (let i = 0; i < 3; i++) {
    const sender = who();
    const value = eth(r.int(1, 1000));
    const toSink = i !== 2;
    const eoa = r.address();
    c.add(
      'nested-value',
      `sendAll via transfer() (2300 stipend) to ${toSink ? 'the Sink' : 'an EOA'}`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.forwarders[1], value, data: enc(d, 'Forwarder', 'sendAll', [toSink ? d.sink : eoa]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [{ from: d.forwarders[1], to: toSink ? d.sink : eoa, amount: value }]),
      ),
    );
  }
  // plain value to an EOA and to the Sink (no internal transfers)
  for (let i = 0; i < 2; i++) {
    const sender = who();
    const value = eth(r.int(1, 9000));
    const eoa = r.address();
    c.add(
      'nested-value',
      `top-level value ${fmt(value)} ETH to ${i ? 'the Sink' : 'an EOA'} (not an internal transfer)`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: i ? d.sink : eoa, value }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, () => []),
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'nested-value',
      `top-level value to the Rejecter reverts`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.rejecter, value: E18 }],
      }),
      checks.status(0),
    );
  }
}

function callcode(c: Cases, r: Rng): void {
  const who = () => r.pick(APPROVED_TRADERS);
  for (let i = 0; i < 3; i++) {
    const sender = who();
    const value = eth(r.int(1, 4000));
    const v = r.int(1, 1e6);
    c.add(
      'callcode',
      `CALLCODE SlotWriter.set with ${fmt(value)} ETH (writes the caller's storage)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.callCoder, data: enc(d, 'CallCoder', 'callcode', [d.slotWriter, value, enc(d, 'SlotWriter', 'set', [v])]) },
          { from: d.accounts[sender], to: d.callCoder, data: enc(d, 'CallCoder', 'slot0') },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, (d) => [{ from: d.callCoder, to: d.slotWriter, amount: value }]),
        (calls) => {
          if (BigInt(calls[1].result) !== BigInt(v)) fail('slot0 not written through CALLCODE');
        },
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'callcode',
      `CALLCODE into code that reverts: no transfer`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.callCoder, data: enc(d, 'CallCoder', 'callcode', [d.slotWriter, E18, enc(d, 'SlotWriter', 'fail')]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, () => []),
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'callcode',
      `CALLCODE with more value than the caller holds fails without a frame`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.callCoder, data: enc(d, 'CallCoder', 'callcode', [d.slotWriter, 100n * E18, enc(d, 'SlotWriter', 'set', [1])]) },
        ],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, () => []),
      ),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = who();
    const value = eth(r.int(1, 2000));
    const pay = eth(r.int(1, 2000));
    const eoa = r.address();
    c.add(
      'callcode',
      `CALLCODE SlotWriter.pay: nested CALL paid from the caller's balance`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.callCoder, data: enc(d, 'CallCoder', 'callcode', [d.slotWriter, value, enc(d, 'SlotWriter', 'pay', [eoa, pay])]) },
        ],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [
          { from: d.callCoder, to: d.slotWriter, amount: value },
          { from: d.callCoder, to: eoa, amount: pay },
        ]),
      ),
    );
  }
  {
    const sender = who();
    const pay = eth(r.int(1, 2000));
    c.add(
      'callcode',
      `DELEGATECALL SlotWriter.pay: value-less frame, nested CALL from the caller`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.callCoder, data: enc(d, 'CallCoder', 'delegate', [d.slotWriter, enc(d, 'SlotWriter', 'pay', [d.sink, pay])]) },
        ],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [{ from: d.callCoder, to: d.sink, amount: pay }]),
      ),
    );
  }
}

function tryCatch(c: Cases, r: Rng): void {
  const who = () => r.pick([...APPROVED_TRADERS, ...UNAPPROVED_TRADERS]);
  const ZERO = '0x' + '00'.repeat(20);
  {
    const sender = who();
    const eoa = r.address();
    c.add(
      'try-catch',
      `SELFDESTRUCT in a frame that reverts later is undone; the Bomb keeps its balance for the next call`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.caller, data: enc(d, 'Caller', 'tryCall', [d.bomb, enc(d, 'Bomb', 'boom', [eoa]), 0, true]) },
          { from: d.accounts[sender], to: d.bomb, data: enc(d, 'Bomb', 'boom', [d.sink]) },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, () => []),
        checks.transfers(1, (d) => [{ from: d.bomb, to: d.sink, amount: d.funded.bomb }]),
      ),
    );
  }
  {
    const sender = who();
    const eoa = r.address();
    const value = eth(r.int(1, 900));
    c.add(
      'try-catch',
      `SELFDESTRUCT with extra value in a frame that succeeds`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.caller, value, data: enc(d, 'Caller', 'tryCall', [d.bomb, enc(d, 'Bomb', 'boom', [eoa]), value, false]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [
          { from: d.caller, to: d.bomb, amount: value },
          { from: d.bomb, to: eoa, amount: d.funded.bomb + value },
        ]),
      ),
    );
  }
  for (const revertAfter of [true, false]) {
    const sender = who();
    const salt = r.hex(32);
    const value = eth(r.int(1, 900));
    const eoa = r.address();
    c.add(
      'try-catch',
      `createAndKill inside a frame that ${revertAfter ? 'reverts (all undone)' : 'succeeds'}`,
      (d) => ({
        calls: [
          {
            from: d.accounts[sender],
            to: d.caller,
            value,
            data: enc(d, 'Caller', 'tryCall', [d.childFactory, enc(d, 'Factory', 'createAndKill', [salt, value, eoa]), value, revertAfter]),
          },
        ],
      }),
      checks.all(checks.status(1), (calls) => {
        if (calls[0].internalTransfers.length !== (revertAfter ? 0 : 3)) fail('transfer count');
      }),
    );
  }
  for (const revertAfter of [true, false]) {
    const sender = who();
    const value = eth(r.int(1, 900));
    c.add(
      'try-catch',
      `value to the Sink inside a frame that ${revertAfter ? 'reverts: no transfer, no log' : 'succeeds'}`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.caller, value, data: enc(d, 'Caller', 'tryCall', [d.sink, '0x', value, revertAfter]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => (revertAfter ? [] : [{ from: d.caller, to: d.sink, amount: value }])),
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'try-catch',
      `STATICCALL into a state change fails (Counter.increment)`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.caller, data: enc(d, 'Caller', 'staticCall', [d.counter, enc(d, 'Counter', 'increment')]) }],
      }),
      checks.all(checks.status(1), (calls) => {
        if (BigInt(calls[0].result.slice(0, 66)) !== 0n) fail('static write should fail');
      }),
    );
  }
  {
    const sender = who();
    c.add(
      'try-catch',
      `STATICCALL into a value transfer fails (Forwarder.fanOut)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.caller, data: enc(d, 'Caller', 'staticCall', [d.forwarders[0], enc(d, 'Forwarder', 'fanOut', [[d.sink], [1]])]) },
        ],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, () => []),
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'try-catch',
      `STATICCALL of a view (Store.read) returns data`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.caller, data: enc(d, 'Caller', 'staticCall', [d.counter, enc(d, 'Counter', 'count')]) }],
      }),
      checks.status(1),
    );
  }
  {
    const sender = who();
    c.add(
      'try-catch',
      `nested revert reasons: Caller → Reverter.requireSmall caught, data logged`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.caller, data: enc(d, 'Caller', 'tryCall', [d.reverter, enc(d, 'Reverter', 'requireSmall', [99]), 0, false]) },
        ],
      }),
      checks.status(1),
    );
  }
  {
    const sender = who();
    c.add(
      'try-catch',
      `CREATE2 inside a frame that reverts, then the same CREATE2 succeeds in the next call`,
      (d) => {
        const salt = '0x' + '11'.repeat(32);
        const init = childInit(d, 5, ZERO, 0n);
        return {
          calls: [
            {
              from: d.accounts[sender],
              to: d.caller,
              value: E18,
              data: enc(d, 'Caller', 'tryCall', [d.childFactory, enc(d, 'Factory', 'rawCreate2', [init, salt, 0]), E18, true]),
            },
            { from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'rawCreate2', [init, salt, E18]) },
          ],
        };
      },
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, () => []),
        (calls) => {
          if (calls[1].internalTransfers.length !== 1) fail('second CREATE2 should endow');
        },
      ),
    );
  }
}

function childInit(d: Deployment, seed: bigint | number, forwardTo: string, amount: bigint) {
  return deployData(d, 'Child', [seed, forwardTo, amount]);
}

function create(c: Cases, r: Rng): void {
  const who = () => r.pick(APPROVED_TRADERS);
  const ZERO = '0x0000000000000000000000000000000000000000';
  for (let i = 0; i < 3; i++) {
    const sender = who();
    const value = eth(r.int(1, 3000));
    const fwd = i === 2 ? value / 2n : 0n;
    c.add(
      'create',
      `Factory CREATE child with ${fmt(value)} ETH${fwd ? ', constructor forwards half to the Sink' : ''}`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.childFactory, value, data: enc(d, 'Factory', 'create', [i * 7 + 1, value, fwd ? d.sink : ZERO, fwd]) }],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.born), (calls) => {
        if (calls[0].internalTransfers.length !== (fwd ? 2 : 1)) fail('expected endowment (and forward) transfers');
      }),
    );
  }
  for (let i = 0; i < 3; i++) {
    const sender = who();
    const value = eth(r.int(0, 3000));
    const salt = r.hex(32);
    c.add(
      'create',
      `Factory CREATE2 child with ${fmt(value)} ETH, then call it`,
      (d) => {
        const init = childInit(d, 9, ZERO, 0n);
        const child = getCreate2Address(d.childFactory, salt, keccak256(init));
        return {
          calls: [
            { from: d.accounts[sender], to: d.childFactory, value, data: enc(d, 'Factory', 'create2', [salt, 9, value, ZERO, 0]) },
            { from: d.accounts[sender], to: child, data: enc(d, 'Child', 'ping') },
          ],
        };
      },
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, (d) => {
          const child = getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 9, ZERO, 0n))).toLowerCase();
          return value ? [{ from: d.childFactory, to: child, amount: value }] : [];
        }),
      ),
    );
  }
  {
    const sender = who();
    const each = eth(r.int(1, 500));
    c.add(
      'create',
      `Factory createMany(3) each endowed with ${fmt(each)} ETH`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.childFactory, value: each * 3n, data: enc(d, 'Factory', 'createMany', [3, each]) }],
      }),
      checks.all(checks.status(1), (calls) => {
        if (calls[0].internalTransfers.length !== 3) fail('expected 3 endowments');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = who();
    const salt = r.hex(32);
    const value = eth(r.int(1, 1000));
    c.add(
      'create',
      `raw CREATE2 twice with the same salt: the second collides (no transfer)`,
      (d) => {
        const init = childInit(d, 1, ZERO, 0n);
        const call = { from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'rawCreate2', [init, salt, value]) };
        return { calls: [call, call] };
      },
      checks.all(
        checks.status(1, 1),
        checks.transfers(1, () => []),
        (calls) => {
          if (calls[0].internalTransfers.length !== 1) fail('first CREATE2 should endow');
        },
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'create',
      `raw CREATE of a constructor that reverts, with value: no transfer`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'rawCreate', [deployData(d, 'BadChild'), E18]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, () => []),
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'create',
      `try new BadChild{value} caught: no transfer`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'tryBad', [E18]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, () => []),
      ),
    );
  }
  {
    const sender = who();
    c.add(
      'create',
      `CREATE whose constructor forwards to a rejecter: whole call reverts`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.childFactory, value: E18, data: enc(d, 'Factory', 'create', [1, E18, d.rejecter, E18 / 2n]) }],
      }),
      checks.status(0),
    );
  }
  {
    const sender = who();
    c.add(
      'create',
      `raw CREATE with more endowment than the factory holds fails`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'rawCreate', [childInit(d, 1, ZERO, 0n), 1000n * E18]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, () => []),
      ),
    );
  }
  // contract creation transactions (to omitted)
  for (let i = 0; i < 3; i++) {
    const sender = who();
    const value = eth(r.int(0, 2000));
    const fwd = i === 1 ? value / 3n : 0n;
    c.add(
      'create',
      `deployment tx: Child with ${fmt(value)} ETH${fwd ? ', constructor forwards a third to the Sink' : ''}`,
      (d) => ({
        calls: [{ from: d.accounts[sender], value, data: childInit(d, 1000 + i, fwd ? d.sink : ZERO, fwd) }],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.born)),
    );
  }
  {
    const sender = who();
    c.add(
      'create',
      `deployment tx: Counter, then increment it at its address`,
      (d) => {
        const from = d.accounts[sender];
        const address = getCreateAddress({ from, nonce: d.nonces[from] });
        return {
          calls: [
            { from, data: deployData(d, 'Counter') },
            { from, to: address, data: enc(d, 'Counter', 'increment') },
          ],
        };
      },
      checks.all(checks.status(1, 1), checks.event(1, TOPIC.incremented)),
    );
  }
  {
    const sender = who();
    c.add(
      'create',
      `deployment tx whose constructor reverts (BadChild)`,
      (d) => ({
        calls: [{ from: d.accounts[sender], value: E18, data: deployData(d, 'BadChild') }],
      }),
      checks.all(checks.status(0), checks.resultPrefix(0, ERROR_SELECTOR)),
    );
  }
  {
    const sender = who();
    const bytes = r.int(1, 200);
    c.add(
      'create',
      `deployment tx of raw init code returning ${bytes} bytes of code`,
      (d) => {
        // init code: copy the trailing runtime bytes to memory and return them
        const runtime = 'fe'.repeat(bytes);
        const init = `0x61${bytes.toString(16).padStart(4, '0')}600e60003961${bytes.toString(16).padStart(4, '0')}6000f3`;
        // 0x61 LLLL PUSH2 len; 600e PUSH1 14 (offset = init length); 6000 PUSH1 0; 39 CODECOPY; 61 LLLL PUSH2 len; 6000; f3 RETURN
        return { calls: [{ from: d.accounts[sender], data: init + runtime }] };
      },
      checks.status(1),
    );
  }
}

function selfdestruct(c: Cases, r: Rng): void {
  const who = () => r.pick([...APPROVED_TRADERS, ...UNAPPROVED_TRADERS]);
  const ZERO = '0x0000000000000000000000000000000000000000';
  for (let i = 0; i < 3; i++) {
    const sender = who();
    const value = i === 0 ? 0n : eth(r.int(1, 3000));
    const eoa = r.address();
    c.add(
      'selfdestruct',
      `pre-existing Bomb.boom with ${fmt(value)} ETH to an EOA (Cancun: code stays)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.bomb, value, data: enc(d, 'Bomb', 'boom', [eoa]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'codeOf', [d.bomb]) },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, (d) => [{ from: d.bomb, to: eoa, amount: d.funded.bomb + value }]),
      ),
    );
  }
  {
    const sender = who();
    const eoa = r.address();
    const second = eth(r.int(1, 100));
    c.add(
      'selfdestruct',
      `Bomb.boom twice: the second moves only the new value`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.bomb, data: enc(d, 'Bomb', 'boom', [eoa]) },
          { from: d.accounts[sender], to: d.bomb, data: enc(d, 'Bomb', 'boom', [eoa]) },
          { from: d.accounts[sender], to: d.bomb, value: second, data: enc(d, 'Bomb', 'boom', [d.sink]) },
        ],
      }),
      checks.all(
        checks.status(1, 1, 1),
        checks.transfers(1, () => []),
        checks.transfers(2, (d) => [{ from: d.bomb, to: d.sink, amount: second }]),
      ),
    );
  }
  {
    const sender = who();
    const eoa = r.address();
    c.add(
      'selfdestruct',
      `Bomb.boom to itself (pre-existing: balance stays), then to an EOA`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.bomb, data: enc(d, 'Bomb', 'boom', [d.bomb]) },
          { from: d.accounts[sender], to: d.bomb, data: enc(d, 'Bomb', 'boom', [eoa]) },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, (d) => [{ from: d.bomb, to: d.bomb, amount: d.funded.bomb }]),
        checks.transfers(1, (d) => [{ from: d.bomb, to: eoa, amount: d.funded.bomb }]),
      ),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const extra = eth(r.int(1, 2000));
    c.add(
      'selfdestruct',
      `forwarder pays the Bomb, then the Bomb self-destructs to the Sink`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.forwarders[0], data: enc(d, 'Forwarder', 'fanOut', [[d.bomb], [extra]]) },
          { from: d.accounts[sender], to: d.bomb, data: enc(d, 'Bomb', 'boom', [d.sink]) },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(1, (d) => [{ from: d.bomb, to: d.sink, amount: d.funded.bomb + extra }]),
      ),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = who();
    const salt = r.hex(32);
    const value = eth(r.int(1, 2000));
    const eoa = r.address();
    c.add(
      'selfdestruct',
      `createAndKill: CREATE2 + SELFDESTRUCT in one tx (account removed)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.childFactory, value, data: enc(d, 'Factory', 'createAndKill', [salt, value, eoa]) },
          {
            from: d.accounts[sender],
            to: d.store,
            data: enc(d, 'Store', 'codeOf', [getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 0, ZERO, 0n)))]),
          },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, (d) => {
          const child = getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 0, ZERO, 0n))).toLowerCase();
          return [
            { from: d.childFactory, to: child, amount: value },
            { from: child, to: eoa, amount: value },
          ];
        }),
      ),
    );
  }
  {
    const sender = who();
    const salt = r.hex(32);
    const value = eth(r.int(1, 2000));
    c.add(
      'selfdestruct',
      `createAndKill to itself: balance burnt`,
      (d) => {
        const child = getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 0, ZERO, 0n)));
        return {
          calls: [
            { from: d.accounts[sender], to: d.childFactory, value, data: enc(d, 'Factory', 'createAndKill', [salt, value, child]) },
            { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'balanceOf', [child]) },
          ],
        };
      },
      checks.all(checks.status(1, 1), (calls) => {
        if (BigInt(calls[1].result) !== 0n) fail('burnt balance should be 0');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = who();
    const salt = r.hex(32);
    const value = eth(r.int(1, 2000));
    const eoa = r.address();
    c.add(
      'selfdestruct',
      `CREATE2 in call 0, kill in call 1 (not same tx: code stays), ping in call 2`,
      (d) => {
        const child = getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 4, ZERO, 0n)));
        return {
          calls: [
            { from: d.accounts[sender], to: d.childFactory, value, data: enc(d, 'Factory', 'create2', [salt, 4, value, ZERO, 0]) },
            { from: d.accounts[sender], to: child, data: enc(d, 'Child', 'kill', [eoa]) },
            { from: d.accounts[sender], to: child, data: enc(d, 'Child', 'ping') },
          ],
        };
      },
      checks.all(
        checks.status(1, 1, 1),
        checks.transfers(1, (d) => {
          const child = getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 4, ZERO, 0n))).toLowerCase();
          return [{ from: child, to: eoa, amount: value }];
        }),
      ),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = who();
    const value = eth(r.int(1, 2000));
    const eoa = r.address();
    c.add(
      'selfdestruct',
      `Kamikaze: SELFDESTRUCT inside a CREATE frame of the factory`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'rawCreate', [deployData(d, 'Kamikaze', [eoa]), value]) }],
      }),
      checks.all(checks.status(1), (calls) => {
        const t = calls[0].internalTransfers;
        if (t.length !== 2 || t[1].to !== eoa || t[1].amount !== value || t[0].to !== t[1].from)
          fail(`unexpected transfers ${JSON.stringify(t, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
      }),
    );
  }
  {
    const sender = who();
    const value = eth(r.int(1, 2000));
    const eoa = r.address();
    c.add(
      'selfdestruct',
      `deployment tx of Kamikaze: SELFDESTRUCT by the top-level frame`,
      (d) => ({
        calls: [{ from: d.accounts[sender], value, data: deployData(d, 'Kamikaze', [eoa]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [
          { from: getCreateAddress({ from: d.accounts[sender], nonce: d.nonces[d.accounts[sender]] }).toLowerCase(), to: eoa, amount: value },
        ]),
      ),
    );
  }
}

function overrides(c: Cases, r: Rng): void {
  for (let i = 0; i < 3; i++) {
    const fresh = r.address();
    const balance = eth(r.int(1000, 100000));
    const value = balance / BigInt(r.int(2, 5));
    c.add(
      'overrides',
      `balance override of a fresh sender, then it sends ${fmt(value)} ETH to the Sink`,
      (d) => ({
        overrides: { accounts: { [fresh]: { balance } } },
        calls: [
          { from: fresh, to: d.sink, value },
          { from: fresh, to: d.store, data: enc(d, 'Store', 'balanceOf', [fresh]) },
        ],
      }),
      checks.all(checks.status(1, 1), (calls) => {
        if (BigInt(calls[1].result) !== balance - value) fail('balance after send');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = r.pick(APPROVED_TRADERS);
    const balance = eth(r.int(1000, 50000));
    const eoas = [r.address(), r.address()];
    const amounts = [balance / 3n, balance / 2n];
    c.add(
      'overrides',
      `balance override of forwarder1 (a contract), then fanOut from it`,
      (d) => ({
        overrides: { accounts: { [d.forwarders[1]]: { balance } } },
        calls: [{ from: d.accounts[sender], to: d.forwarders[1], data: enc(d, 'Forwarder', 'fanOut', [eoas, amounts]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => eoas.map((e, j) => ({ from: d.forwarders[1], to: e, amount: amounts[j] }))),
      ),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const balance = eth(r.int(1, 99999));
    const eoa = r.address();
    c.add(
      'overrides',
      `balance override of the Bomb, then boom: SELFDESTRUCT moves the overridden balance`,
      (d) => ({
        overrides: { accounts: { [d.bomb]: { balance } } },
        calls: [{ from: d.accounts[sender], to: d.bomb, data: enc(d, 'Bomb', 'boom', [eoa]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [{ from: d.bomb, to: eoa, amount: balance }]),
      ),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    c.add(
      'overrides',
      `balance override to 0 of a dev account, read through Env`,
      (d) => ({
        overrides: { accounts: { [d.accounts[sender]]: { balance: 0n } } },
        calls: [{ from: d.accounts[sender], to: d.env, data: enc(d, 'Env', 'read') }],
      }),
      checks.status(1),
    );
  }
  for (let i = 0; i < 3; i++) {
    const fresh = r.address();
    const nonce = r.int(1, 500);
    c.add(
      'overrides',
      `nonce override ${nonce} of a fresh sender, then calls with nonce ${nonce} and ${nonce + 1}`,
      (d) => ({
        overrides: { accounts: { [fresh]: { nonce } } },
        calls: [
          { from: fresh, to: d.counter, nonce, data: enc(d, 'Counter', 'increment') },
          { from: fresh, to: d.counter, nonce: nonce + 1, data: enc(d, 'Counter', 'increment') },
        ],
      }),
      checks.status(1, 1),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const bump = r.int(1, 50);
    c.add(
      'overrides',
      `nonce override of a dev account (+${bump}), then a call with that nonce`,
      (d) => {
        const from = d.accounts[sender];
        const nonce = d.nonces[from] + bump;
        return { overrides: { accounts: { [from]: { nonce } } }, calls: [{ from, to: d.counter, nonce, data: enc(d, 'Counter', 'increment') }] };
      },
      checks.status(1),
    );
  }
  for (let i = 0; i < 2; i++) {
    const fresh = r.address();
    const nonce = r.int(1, 1000);
    c.add(
      'overrides',
      `nonce override ${nonce}, deployment tx: the contract address follows the nonce`,
      (d) => {
        const address = getCreateAddress({ from: fresh, nonce });
        return {
          overrides: { accounts: { [fresh]: { nonce, balance: E18 } } },
          calls: [
            { from: fresh, data: deployData(d, 'Counter') },
            { from: fresh, to: address, data: enc(d, 'Counter', 'incrementBy', [7]) },
          ],
        };
      },
      checks.all(checks.status(1, 1), (calls) => {
        if (BigInt(calls[1].result) !== 7n) fail('counter at the predicted address');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const target = r.address();
    const count = r.big(1n, 10n ** 20n);
    const sender = r.pick(APPROVED_TRADERS);
    c.add(
      'overrides',
      `code override: Counter code + count slot at a fresh address, then increment`,
      (d) => ({
        overrides: { contractCodes: { [target]: d.artifacts.Counter.deployedBytecode }, storage: { [target]: { [word(0n)]: word(count) } } },
        calls: [{ from: d.accounts[sender], to: target, data: enc(d, 'Counter', 'increment') }],
      }),
      checks.all(checks.status(1), (calls) => {
        if (BigInt(calls[0].result) !== count + 1n) fail('count + 1');
      }),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    c.add(
      'overrides',
      `code override: Store code over the Counter (storage kept), read slot 0`,
      (d) => ({
        overrides: { contractCodes: { [d.counter]: d.artifacts.Store.deployedBytecode } },
        calls: [{ from: d.accounts[sender], to: d.counter, data: enc(d, 'Store', 'readAndLog', [0]) }],
      }),
      checks.all(checks.status(1), (calls) => {
        if (BigInt(calls[0].result) !== 5n) fail('counter storage should read 5');
      }),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    c.add(
      'overrides',
      `code override: Sink code over the Rejecter, then send it value via forwarder0`,
      (d) => ({
        overrides: { contractCodes: { [d.rejecter]: d.artifacts.Sink.deployedBytecode } },
        calls: [{ from: d.accounts[sender], to: d.forwarders[0], data: enc(d, 'Forwarder', 'fanOut', [[d.rejecter], [E18]]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [{ from: d.forwarders[0], to: d.rejecter, amount: E18 }]),
        checks.event(0, TOPIC.received),
      ),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const eoa = r.address();
    c.add(
      'overrides',
      `code override: Rejecter code at an EOA, a nested payment to it fails`,
      (d) => ({
        overrides: { contractCodes: { [eoa]: d.artifacts.Rejecter.deployedBytecode } },
        calls: [
          {
            from: d.accounts[sender],
            to: d.forwarders[0],
            data: enc(d, 'Forwarder', 'fanOut', [
              [eoa, d.sink],
              [E18, E18],
            ]),
          },
        ],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [{ from: d.forwarders[0], to: d.sink, amount: E18 }]),
      ),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    c.add(
      'overrides',
      `code override: empty code for the Reverter (call to a codeless account)`,
      (d) => ({
        overrides: { contractCodes: { [d.reverter]: '0x' } },
        calls: [{ from: d.accounts[sender], to: d.reverter, data: enc(d, 'Reverter', 'empty') }],
      }),
      checks.status(1),
    );
  }
  for (let i = 0; i < 3; i++) {
    const fresh = r.address();
    const bal = r.big(E18, 10n ** 24n);
    const to = r.address();
    const t = r.pick(['tokenA', 'tokenB', 'tokenC'] as const);
    c.add(
      'overrides',
      `storage override: ${t} balance slot of a fresh address, then it transfers`,
      (d) => ({
        overrides: { storage: { [d[t]]: { [erc20BalanceSlot(fresh)]: word(bal) } } },
        calls: [
          { from: fresh, to: d[t], data: enc(d, 'TestToken', 'transfer', [to, bal / 2n]) },
          { from: fresh, to: d[t], data: enc(d, 'TestToken', 'balanceOf', [fresh]) },
        ],
      }),
      checks.all(checks.status(1, 1), (calls) => {
        if (BigInt(calls[1].result) !== bal - bal / 2n) fail('token balance after transfer');
      }),
    );
  }
  {
    const owner = r.address();
    const spender = r.pick(APPROVED_TRADERS);
    const amount = r.big(E18, 10n ** 22n);
    c.add(
      'overrides',
      `storage override: balance and allowance slots, then transferFrom`,
      (d) => {
        const sp = d.accounts[spender];
        const inner = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [owner, 1]));
        const allowanceSlot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'bytes32'], [sp, inner]));
        return {
          overrides: { storage: { [d.tokenB]: { [erc20BalanceSlot(owner)]: word(amount), [allowanceSlot]: word(amount) } } },
          calls: [{ from: sp, to: d.tokenB, data: enc(d, 'TestToken', 'transferFrom', [owner, sp, amount]) }],
        };
      },
      checks.all(checks.status(1), checks.event(0, TOPIC.transfer)),
    );
  }
  for (let i = 0; i < 2; i++) {
    const slot = r.big(0n, 2n ** 256n - 1n);
    const value = r.big(1n, 2n ** 256n - 1n);
    const sender = r.pick(APPROVED_TRADERS);
    c.add(
      'overrides',
      `storage override: arbitrary Store slot, read and logged`,
      (d) => ({
        overrides: { storage: { [d.store]: { [word(slot)]: word(value) } } },
        calls: [{ from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'readAndLog', [slot]) }],
      }),
      checks.all(checks.status(1), (calls) => {
        if (BigInt(calls[0].result) !== value) fail('slot value');
      }),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const count = r.int(100, 1000);
    c.add(
      'overrides',
      `storage override: Counter count, expectCount sees it, increment builds on it`,
      (d) => ({
        overrides: { storage: { [d.counter]: { [word(0n)]: word(BigInt(count)) } } },
        calls: [
          { from: d.accounts[sender], to: d.counter, data: enc(d, 'Counter', 'expectCount', [count]) },
          { from: d.accounts[sender], to: d.counter, data: enc(d, 'Counter', 'increment') },
          { from: d.accounts[sender], to: d.counter, data: enc(d, 'Counter', 'expectCount', [count]) },
        ],
      }),
      checks.status(1, 1, 0),
    );
  }
  {
    const fresh = r.address();
    const target = r.address();
    const nonce = r.int(3, 90);
    c.add(
      'overrides',
      `every override kind at once (balance, nonce, code, storage)`,
      (d) => ({
        overrides: {
          accounts: { [fresh]: { balance: 50n * E18, nonce } },
          contractCodes: { [target]: d.artifacts.Forwarder.deployedBytecode },
          storage: { [d.store]: { [word(42n)]: word(4242n) } },
        },
        calls: [
          {
            from: fresh,
            to: target,
            nonce,
            value: 10n * E18,
            data: enc(d, 'Forwarder', 'fanOut', [
              [d.sink, d.rejecter],
              [3n * E18, E18],
            ]),
          },
          { from: fresh, to: d.store, nonce: nonce + 1, data: enc(d, 'Store', 'readAndLog', [42]) },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(0, (d) => [{ from: target, to: d.sink, amount: 3n * E18 }]),
      ),
    );
  }
  // A call's own overrides: applied just before it, on top of what the calls before it did.
  {
    const fresh = r.address();
    const first = eth(r.int(1, 900));
    const refill = eth(r.int(1000, 5000));
    c.add(
      'call-overrides',
      `balance override before call 1 replaces what call 0 left; call 1 then spends from it`,
      (d) => ({
        overrides: { accounts: { [fresh]: { balance: first } } },
        calls: [
          { from: fresh, to: d.sink, value: first / 2n },
          { from: fresh, to: d.sink, value: refill / 3n, overrides: { accounts: { [fresh]: { balance: refill } } } },
          { from: fresh, to: d.store, data: enc(d, 'Store', 'balanceOf', [fresh]) },
        ],
      }),
      checks.all(checks.status(1, 1, 1), (calls) => {
        if (BigInt(calls[2].result) !== refill - refill / 3n) fail('balance after the refill and the send');
      }),
    );
  }
  {
    const fresh = r.address();
    const sender = r.pick(APPROVED_TRADERS);
    const bal = r.big(E18, 10n ** 24n);
    c.add(
      'call-overrides',
      `token balance slot overridden before call 1 (after call 0 moved tokens to the same holder)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.tokenA, data: enc(d, 'TestToken', 'transfer', [fresh, E18]) },
          {
            from: fresh,
            to: d.tokenA,
            data: enc(d, 'TestToken', 'transfer', [d.accounts[sender], bal / 2n]),
            overrides: { storage: { [d.tokenA]: { [erc20BalanceSlot(fresh)]: word(bal) } } },
          },
          { from: fresh, to: d.tokenA, data: enc(d, 'TestToken', 'balanceOf', [fresh]) },
        ],
      }),
      checks.all(checks.status(1, 1, 1), (calls) => {
        if (BigInt(calls[2].result) !== bal - bal / 2n) fail('token balance after the override and the transfer');
      }),
    );
  }
  {
    const target = r.address();
    const sender = r.pick(APPROVED_TRADERS);
    c.add(
      'call-overrides',
      `code override before call 1 only: call 0 sees an empty account, call 1 a Forwarder`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: target, value: 2n * E18 },
          {
            from: d.accounts[sender],
            to: target,
            data: enc(d, 'Forwarder', 'fanOut', [[d.sink], [E18]]),
            overrides: { contractCodes: { [target]: d.artifacts.Forwarder.deployedBytecode } },
          },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(1, (d) => [{ from: target, to: d.sink, amount: E18 }]),
      ),
    );
  }
  {
    const fresh = r.address();
    const nonce = r.int(10, 500);
    c.add(
      'call-overrides',
      `nonce override before call 1: its deployment lands at the address of the new nonce`,
      (d) => ({
        overrides: { accounts: { [fresh]: { balance: E18 } } },
        calls: [
          { from: fresh, data: deployData(d, 'Counter') },
          { from: fresh, nonce, data: deployData(d, 'Counter'), overrides: { accounts: { [fresh]: { nonce } } } },
          { from: fresh, to: getCreateAddress({ from: fresh, nonce }), data: enc(d, 'Counter', 'incrementBy', [3]) },
        ],
      }),
      checks.all(checks.status(1, 1, 1), (calls) => {
        if (BigInt(calls[2].result) !== 3n) fail('counter at the overridden nonce’s address');
      }),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const count = r.int(100, 1000);
    c.add(
      'call-overrides',
      `storage override before call 2 resets what calls 0 and 1 wrote`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.counter, data: enc(d, 'Counter', 'increment') },
          { from: d.accounts[sender], to: d.counter, data: enc(d, 'Counter', 'increment') },
          {
            from: d.accounts[sender],
            to: d.counter,
            data: enc(d, 'Counter', 'expectCount', [count]),
            overrides: { storage: { [d.counter]: { [word(0n)]: word(BigInt(count)) } } },
          },
        ],
      }),
      checks.status(1, 1, 1),
    );
  }
}

function dependent(c: Cases, r: Rng): void {
  for (let i = 0; i < 4; i++) {
    const k = r.int(1, 5);
    const sender = r.pick([...APPROVED_TRADERS, ...UNAPPROVED_TRADERS]);
    const wrong = i === 3;
    c.add(
      'dependent',
      `Counter: ${k} increments then expectCount(${5 + k + (wrong ? 1 : 0)})${wrong ? ' reverts (Mismatch)' : ''}`,
      (d) => ({
        calls: [
          ...Array.from({ length: k }, () => ({ from: d.accounts[sender], to: d.counter, data: enc(d, 'Counter', 'increment') })),
          { from: d.accounts[sender], to: d.counter, data: enc(d, 'Counter', 'expectCount', [5 + k + (wrong ? 1 : 0)]) },
        ],
      }),
      checks.status(...Array<1>(k).fill(1), wrong ? 0 : 1),
    );
  }
  for (let i = 0; i < 3; i++) {
    const a = r.pick(APPROVED_TRADERS);
    const b = r.pick(UNAPPROVED_TRADERS);
    c.add(
      'dependent',
      `Counter: increments by two senders, reset (gas refund), increment again`,
      (d) => ({
        calls: [
          { from: d.accounts[a], to: d.counter, data: enc(d, 'Counter', 'increment') },
          { from: d.accounts[b], to: d.counter, data: enc(d, 'Counter', 'increment') },
          { from: d.accounts[a], to: d.counter, data: enc(d, 'Counter', 'reset') },
          { from: d.accounts[b], to: d.counter, data: enc(d, 'Counter', 'increment') },
          { from: d.accounts[a], to: d.counter, data: enc(d, 'Counter', 'reset') },
        ],
      }),
      checks.all(checks.status(1, 1, 1, 1, 1), (calls) => {
        if (BigInt(calls[3].result) !== 1n) fail('count after reset + increment');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const sender = r.pick(APPROVED_TRADERS);
    const v = r.int(1, 1e9);
    c.add(
      'dependent',
      `Store write then read in the next call`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'write', [77, v]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'readAndLog', [77]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'write', [77, 0]) },
        ],
      }),
      checks.all(checks.status(1, 1, 1), (calls) => {
        if (BigInt(calls[1].result) !== BigInt(v)) fail('read back');
      }),
    );
  }
  for (let i = 0; i < 3; i++) {
    const who = r.pick(APPROVED_TRADERS);
    const value = eth(r.int(1, 5000));
    c.add(
      'dependent',
      `swap ETH → TKA, then sell exactly what was bought back (needs call 0's output)`,
      (d) => ({
        calls: [
          {
            from: d.accounts[who],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'swapExactETHForTokens', [0, [d.weth, d.tokenA], d.accounts[who], DEADLINE]),
          },
          {
            from: d.accounts[who],
            to: d.router,
            data: enc(d, 'UniswapV2Router02', 'swapExactTokensForETH', [TRADER_TOKENS, 0, [d.tokenA, d.weth], d.accounts[who], DEADLINE]),
          },
          { from: d.accounts[who], to: d.tokenA, data: enc(d, 'TestToken', 'balanceOf', [d.accounts[who]]) },
        ],
      }),
      checks.all(checks.status(1, 1, 1), (calls) => {
        if (BigInt(calls[2].result) === 0n) fail('balance read');
      }),
    );
  }
  for (let i = 0; i < 2; i++) {
    const value = eth(r.int(1, 900));
    const sender = r.pick(APPROVED_TRADERS);
    const eoa = r.address();
    // (A fresh EOA funded in call 0 cannot spend in call 1 on the node: hardhat checks a sender's
    // funds against the head state when a transaction enters its mempool.)
    c.add(
      'dependent',
      `fund forwarder2 in call 0, it pays out that ETH in call 1`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.forwarders[2], value },
          {
            from: d.accounts[sender],
            to: d.forwarders[2],
            data: enc(d, 'Forwarder', 'fanOut', [
              [d.sink, eoa],
              [value / 4n, value - value / 4n],
            ]),
          },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(1, (d) => [
          { from: d.forwarders[2], to: d.sink, amount: value / 4n },
          { from: d.forwarders[2], to: eoa, amount: value - value / 4n },
        ]),
      ),
    );
  }
  for (let i = 0; i < 2; i++) {
    const who = r.pick(APPROVED_TRADERS);
    const n = r.int(2, 4);
    c.add(
      'dependent',
      `${n} calls with explicit, correct nonces`,
      (d) => {
        const from = d.accounts[who];
        return { calls: Array.from({ length: n }, (_, j) => ({ from, to: d.counter, nonce: d.nonces[from] + j, data: enc(d, 'Counter', 'increment') })) };
      },
      checks.status(...Array<1>(n).fill(1)),
    );
  }
}

function misc(c: Cases, r: Rng): void {
  for (let i = 0; i < 3; i++) {
    const sender = r.pick([...APPROVED_TRADERS, ...UNAPPROVED_TRADERS]);
    const value = i === 2 ? E18 : 0n;
    c.add(
      'env',
      `Env.read (chain id, timestamp, base fee, gas price, coinbase, gas limit, balances)`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.env, value, data: enc(d, 'Env', 'read') }],
      }),
      checks.status(value ? 0 : 1),
    );
  }
  const precompiles: Array<[string, string]> = [
    ['ecrecover', '0x0000000000000000000000000000000000000001'],
    ['sha256', '0x0000000000000000000000000000000000000002'],
    ['ripemd160', '0x0000000000000000000000000000000000000003'],
    ['identity', '0x0000000000000000000000000000000000000004'],
  ];
  for (const [name, address] of precompiles) {
    const sender = r.pick(APPROVED_TRADERS);
    const data = r.hex(r.int(1, 200));
    c.add(
      'precompile',
      `top-level call to ${name} with ${(data.length - 2) / 2} bytes`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: address, data }],
      }),
      checks.status(1),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const data = r.hex(3000);
    const to = r.address();
    c.add(
      'calldata',
      `EOA call with 3000 bytes of non-zero data (EIP-7623 floor)`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to, data }],
      }),
      checks.status(1),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const to = r.address();
    c.add(
      'calldata',
      `EOA call with 5000 zero bytes of data`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to, data: '0x' + '00'.repeat(5000) }],
      }),
      checks.status(1),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const tail = r.hex(2000);
    c.add(
      'calldata',
      `Sink fallback with value and 2000 bytes of data`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.sink, value: E18, data: tail }],
      }),
      checks.all(checks.status(1), checks.event(0, TOPIC.received)),
    );
  }
  {
    const sender = r.pick(APPROVED_TRADERS);
    const to = r.address();
    c.add(
      'calldata',
      `value transfer with exactly 21000 gas`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to, value: 1n, gas: 21_000n }],
      }),
      checks.status(1),
    );
  }
}

const pre = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const w32 = (v: bigint | number) => BigInt(v).toString(16).padStart(64, '0');

function edge(c: Cases, r: Rng): void {
  const who = () => r.pick(APPROVED_TRADERS);
  {
    const sender = who();
    const v = r.int(1, 1e9);
    c.add(
      'edge',
      `transient storage: set in call 0, gone in call 1; visible to a nested call in the same tx`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.transient, data: enc(d, 'Transient', 'put', [v]) },
          { from: d.accounts[sender], to: d.transient, data: enc(d, 'Transient', 'put', [v + 1]) },
          { from: d.accounts[sender], to: d.transient, data: enc(d, 'Transient', 'get') },
          { from: d.accounts[sender], to: d.transient, data: enc(d, 'Transient', 'putThenCall', [v + 2]) },
        ],
      }),
      checks.all(checks.status(1, 1, 1, 1), (calls) => {
        if (BigInt(calls[1].result) !== 0n || BigInt(calls[2].result) !== 0n || BigInt(calls[3].result) !== BigInt(v + 2)) fail('transient storage');
      }),
    );
  }
  {
    const sender = who();
    const n = r.int(40, 80);
    c.add(
      'edge',
      `refund cap: fill ${n} slots in call 0, clear them in call 1 (refund capped at gasUsed/5)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'fill', [5000, n, 1]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'clear', [5000, n]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'fill', [5000, 3, 0]) },
        ],
      }),
      checks.status(1, 1, 1),
    );
  }
  {
    const sender = who();
    c.add(
      'edge',
      `blob base fee and blobhash(0) without blobs; MCOPY`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.env, data: enc(d, 'Env', 'blobs') },
          { from: d.accounts[sender], to: d.env, data: enc(d, 'Env', 'copy', [r.hex(100)]) },
        ],
      }),
      checks.status(1, 1),
    );
  }
  {
    const sender = who();
    const loop = r.address();
    // PUSH0, then forever: JUMPDEST PUSH1 1 ADD DUP1 DUP1 SSTORE PUSH1 1 JUMP (a fresh slot per turn: few steps)
    c.add(
      'edge',
      `63/64 rule: nested call into an endless SSTORE loop (code override) runs out of gas, the caller goes on`,
      (d) => ({
        overrides: { contractCodes: { [loop]: '0x5f5b600101808055600156' } },
        calls: [
          {
            from: d.accounts[sender],
            to: d.forwarders[0],
            data: enc(d, 'Forwarder', 'fanOut', [
              [loop, d.sink],
              [E18, 2n * E18],
            ]),
          },
        ],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [{ from: d.forwarders[0], to: d.sink, amount: 2n * E18 }]),
      ),
    );
  }
  {
    const target = r.address();
    c.add(
      'edge',
      `LOG0 and LOG4 from raw code (code override)`,
      () => ({
        // PUSH1 ff PUSH1 0 MSTORE8 | PUSH1 1 PUSH1 0 LOG0 | PUSH1 4 PUSH1 3 PUSH1 2 PUSH1 1 PUSH1 1 PUSH1 0 LOG4 | STOP
        overrides: { contractCodes: { [target]: '0x60ff60005360016000a0600460036002600160016000a400' } },
        calls: [{ from: '0x' + '00'.repeat(19) + '77', to: target }],
      }),
      checks.all(checks.status(1), (calls) => {
        if (calls[0].logs.length !== 2 || calls[0].logs[0].topics.length !== 0 || calls[0].logs[1].topics.length !== 4) fail('LOG0 + LOG4');
      }),
    );
  }
  {
    const sender = who();
    c.add(
      'edge',
      `deployment returning 24577 bytes of code (over EIP-170) fails`,
      (d) => ({
        calls: [{ from: d.accounts[sender], data: '0x6160016000f3' }],
      }),
      checks.status(0),
    );
  }
  {
    const sender = who();
    c.add(
      'edge',
      `deployment returning 24576 bytes of code (EIP-170 limit) succeeds`,
      (d) => ({
        calls: [{ from: d.accounts[sender], data: '0x6160006000f3' }],
      }),
      checks.status(1),
    );
  }
  {
    const fresh = r.address();
    c.add(
      'edge',
      `deployment onto an address that has code (code override): collision fails`,
      (d) => ({
        overrides: { contractCodes: { [getCreateAddress({ from: fresh, nonce: 0 })]: '0x00' } },
        calls: [{ from: fresh, data: deployData(d, 'Counter') }],
      }),
      checks.status(0),
    );
  }
  {
    const sender = who();
    const salt = r.hex(32);
    const pre = eth(r.int(1, 900));
    const value = eth(r.int(1, 900));
    c.add(
      'edge',
      `CREATE2 onto an address that already holds ETH (allowed); the child keeps both`,
      (d) => {
        const child = getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 3, '0x' + '00'.repeat(20), 0n)));
        return {
          calls: [
            { from: d.accounts[sender], to: child, value: pre },
            { from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'rawCreate2', [childInit(d, 3, '0x' + '00'.repeat(20), 0n), salt, value]) },
            { from: d.accounts[sender], to: child, data: enc(d, 'Child', 'ping') },
          ],
        };
      },
      checks.all(checks.status(1, 1, 1), (calls) => {
        if (BigInt(calls[2].result.slice(0, 66)) !== pre + value) fail('child balance');
      }),
    );
  }
  {
    const sender = who();
    const salt = r.hex(32);
    c.add(
      'edge',
      `CREATE2 onto an address that holds only storage (storage override; EIP-7610 is not applied by hardhat)`,
      (d) => {
        const child = getCreate2Address(d.childFactory, salt, keccak256(childInit(d, 3, '0x' + '00'.repeat(20), 0n)));
        return {
          overrides: { storage: { [child]: { [word(1n)]: word(1n) } } },
          calls: [
            { from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'rawCreate2', [childInit(d, 3, '0x' + '00'.repeat(20), 0n), salt, E18]) },
          ],
        };
      },
      checks.status(1),
    );
  }
  {
    const sender = who();
    const fresh = r.address();
    c.add(
      'edge',
      `EXTCODEHASH / EXTCODESIZE of a missing account, an EOA with balance, a contract, a precompile`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'codeOf', [fresh]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'codeOf', [d.accounts[12]]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'codeOf', [d.counter]) },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'codeOf', [pre(2)]) },
        ],
      }),
      checks.status(1, 1, 1, 1),
    );
  }
  {
    const sender = who();
    const fresh = r.address();
    c.add(
      'edge',
      `touching an empty account with a 0-value call leaves it missing (EIP-161)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.forwarders[0], data: enc(d, 'Forwarder', 'fanOut', [[fresh], [0]]) },
          { from: d.accounts[sender], to: fresh },
          { from: d.accounts[sender], to: d.store, data: enc(d, 'Store', 'codeOf', [fresh]) },
        ],
      }),
      checks.all(checks.status(1, 1, 1), (calls) => {
        if (BigInt('0x' + calls[2].result.slice(66)) !== 0n) fail('codehash of a touched empty account should be 0');
      }),
    );
  }
  {
    const sender = who();
    c.add(
      'edge',
      `two Factory CREATEs in consecutive calls get consecutive nonces`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'create', [1, 0, '0x' + '00'.repeat(20), 0]) },
          { from: d.accounts[sender], to: d.childFactory, data: enc(d, 'Factory', 'create', [2, 0, '0x' + '00'.repeat(20), 0]) },
        ],
      }),
      checks.all(checks.status(1, 1), (calls) => {
        if (calls[0].result === calls[1].result) fail('same address twice');
      }),
    );
  }
  {
    const sender = who();
    const value = eth(r.int(1, 1000));
    c.add(
      'edge',
      `value sent to oneself (top level and nested)`,
      (d) => ({
        calls: [
          { from: d.accounts[sender], to: d.accounts[sender], value },
          { from: d.accounts[sender], to: d.forwarders[0], data: enc(d, 'Forwarder', 'fanOut', [[d.forwarders[0]], [value]]) },
        ],
      }),
      checks.all(
        checks.status(1, 1),
        checks.transfers(1, (d) => [{ from: d.forwarders[0], to: d.forwarders[0], amount: value }]),
      ),
    );
  }
  const precompiles: Array<[string, number, string, 0 | 1]> = [
    ['modexp 3^5 mod 7', 5, '0x' + w32(1) + w32(1) + w32(1) + '030507', 1],
    ['bn254 add', 6, '0x' + w32(1) + w32(2) + w32(1) + w32(2), 1],
    ['bn254 mul', 7, '0x' + w32(1) + w32(2) + w32(r.int(2, 1e6)), 1],
    ['bn254 pairing (empty input)', 8, '0x', 1],
    ['blake2f 12 rounds', 9, '0x0000000c' + r.hex(208).slice(2) + '01', 1],
    ['KZG point evaluation with invalid input', 10, r.hex(192), 0],
    ['BLS12-381 G1ADD of two points at infinity', 11, '0x' + '00'.repeat(256), 1],
    ['BLS12-381 G1ADD with invalid input', 11, r.hex(256), 0],
    ['BLS12-381 MAP_FP_TO_G1 of 1', 16, '0x' + '00'.repeat(63) + '01', 1],
  ];
  for (const [label, n, data, status] of precompiles) {
    const sender = who();
    c.add(
      'edge',
      `precompile 0x${n.toString(16).padStart(2, '0')} ${label}`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: pre(n), data, gas: 1_000_000n }],
      }),
      checks.status(status),
    );
  }
  {
    const sender = who();
    c.add(
      'edge',
      `forwarder pays the bn254 add precompile 1 wei with a nested call`,
      (d) => ({
        calls: [{ from: d.accounts[sender], to: d.forwarders[0], data: enc(d, 'Forwarder', 'fanOut', [[pre(6)], [1]]) }],
      }),
      checks.all(
        checks.status(1),
        checks.transfers(0, (d) => [{ from: d.forwarders[0], to: pre(6), amount: 1n }]),
      ),
    );
  }
  {
    // zero polynomial: commitment and proof are the point at infinity, p(z) = 0 for any z
    const sender = who();
    const z = r.big(0n, 2n ** 200n);
    c.add(
      'edge',
      `precompile 0x0a KZG point evaluation with a valid (zero polynomial) proof`,
      (d) => {
        const infinity = 'c0' + '00'.repeat(47);
        const versioned = '01' + sha256('0x' + infinity).slice(4);
        return { calls: [{ from: d.accounts[sender], to: pre(10), data: '0x' + versioned + w32(z) + w32(0) + infinity + infinity, gas: 1_000_000n }] };
      },
      checks.status(1),
    );
  }
  // the block named differently: block_number, or omitted (latest is block N)
  for (const block of ['block_number', 'latest'] as const) {
    const sender = who();
    const value = eth(r.int(1, 500));
    c.add(
      'edge',
      `request names the block as ${block === 'latest' ? 'nothing (latest)' : block}: swap ETH → TKA`,
      (d) => ({
        calls: [
          {
            from: d.accounts[sender],
            to: d.router,
            value,
            data: enc(d, 'UniswapV2Router02', 'swapExactETHForTokens', [0, [d.weth, d.tokenA], d.accounts[sender], DEADLINE]),
          },
        ],
      }),
      checks.status(1),
      undefined,
      block,
    );
  }
}

function nonceMismatch(c: Cases, r: Rng): void {
  const who = () => r.pick(APPROVED_TRADERS);
  {
    const sender = who();
    const ahead = r.int(1, 9);
    c.add(
      'nonce-mismatch',
      `single call with a nonce ${ahead} ahead`,
      (d) => {
        const from = d.accounts[sender];
        return { calls: [{ from, to: d.counter, nonce: d.nonces[from] + ahead, data: enc(d, 'Counter', 'increment') }] };
      },
      undefined,
      (d) => `Nonce mismatch. Expected ${d.nonces[d.accounts[sender]]}, got ${d.nonces[d.accounts[sender]] + ahead} on call #0`,
    );
  }
  {
    const sender = who();
    c.add(
      'nonce-mismatch',
      `third call of one sender reuses the second call's nonce`,
      (d) => {
        const from = d.accounts[sender];
        const n = d.nonces[from];
        return {
          calls: [
            { from, to: d.counter, data: enc(d, 'Counter', 'increment') },
            { from, to: d.counter, nonce: n + 1, data: enc(d, 'Counter', 'increment') },
            { from, to: d.counter, nonce: n + 1, data: enc(d, 'Counter', 'increment') },
          ],
        };
      },
      undefined,
      (d) => `Nonce mismatch. Expected ${d.nonces[d.accounts[sender]] + 2}, got ${d.nonces[d.accounts[sender]] + 1} on call #2`,
    );
  }
  {
    const fresh = r.address();
    const nonce = r.int(5, 50);
    c.add(
      'nonce-mismatch',
      `nonce override ${nonce}, call carries the pre-override nonce 0`,
      (d) => ({
        overrides: { accounts: { [fresh]: { nonce } } },
        calls: [{ from: fresh, to: d.counter, nonce: 0, data: enc(d, 'Counter', 'increment') }],
      }),
      undefined,
      () => `Nonce mismatch. Expected ${nonce}, got 0 on call #0`,
    );
  }
  {
    const a = r.pick(APPROVED_TRADERS);
    const b = r.pick(UNAPPROVED_TRADERS);
    c.add(
      'nonce-mismatch',
      `second sender's call #1 carries a stale nonce`,
      (d) => ({
        calls: [
          { from: d.accounts[a], to: d.counter, nonce: d.nonces[d.accounts[a]], data: enc(d, 'Counter', 'increment') },
          { from: d.accounts[b], to: d.counter, nonce: d.nonces[d.accounts[b]] - 1, data: enc(d, 'Counter', 'increment') },
        ],
      }),
      undefined,
      (d) => `Nonce mismatch. Expected ${d.nonces[d.accounts[b]]}, got ${d.nonces[d.accounts[b]] - 1} on call #1`,
    );
  }
  {
    const fresh = r.address();
    c.add(
      'nonce-mismatch',
      `fresh sender: call #0 without nonce, call #1 with nonce 0`,
      (d) => ({
        calls: [
          { from: fresh, to: d.counter, data: enc(d, 'Counter', 'increment') },
          { from: fresh, to: d.counter, nonce: 0, data: enc(d, 'Counter', 'increment') },
        ],
      }),
      undefined,
      () => `Nonce mismatch. Expected 1, got 0 on call #1`,
    );
  }
}

/** The whole deterministic case list. */
export function generateCases(seed = 0x5eed): CaseSpec[] {
  const c = new Cases();
  const groups = [erc20, uniswap, liquidity, reverts, nestedValue, callcode, create, selfdestruct, tryCatch, overrides, dependent, misc, edge, nonceMismatch];
  groups.forEach((g, i) => g(c, prng(seed + i * 7919)));
  return c.list;
}
