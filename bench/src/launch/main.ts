// Launch-execution benchmark: `npm run bench:launch` (which installs, builds and migrates first).
//
//   1. a local hardhat@2 node (chain id 31337, Prague, base fee 0, no automine, FIFO mempool)
//      with WETH9, UniswapV2Factory and UniswapV2Router02 deployed
//   2. the product: gateway, intent service (watching the chain, executing through the router,
//      submitting with eth_sendRawTransaction) and simulation service (the token probe), plus a
//      signing webhook in a process of its own (signing-webhook.ts: test-support's SigningWebhook,
//      signing in worker threads) that answers at once
//   3. per launch: a fresh ERC20, N intents on it created through the gateway (one per wallet
//      round-robin, distinct bribes), then the launch (addLiquidityETH) mined; the bench waits
//      for the service's "launch of …" log line and for the last buy in the node's mempool,
//      checks the pending block, mines it and checks every intent `completed` through the API
//   4. BENCH_LAUNCH_RUNS launches of BENCH_LAUNCH_SMALL (100) intents and BENCH_LAUNCH_LARGE_RUNS
//      of BENCH_LAUNCH_LARGE (1000), each after BENCH_LAUNCH_WARMUP unmeasured ones
//   5. the pending scenario: the intent service restarted following the node's mempool
//      (MEMPOOL_LAUNCHES=ws over WS_URL), BENCH_LAUNCH_PENDING_RUNS launches of BENCH_LAUNCH_SMALL
//      intents whose launch transaction is sent and left pending: the buys must be in the mempool
//      right behind it, and one mined block must hold the launch followed by every buy
//   6. the relay scenario: the same with RELAY_URLS (a LocalRelay building each bundle into the
//      node's pool), BENCH_LAUNCH_RELAY_RUNS launches: the buys go as one bundle behind the launch
// The figure: the launch seen by the service (its block; in the pending scenario, its transaction
// announced) → last buy handed to the node (the service's own log line). Own database
// (ti_bench_<pid>_<random>, dropped at the end), own nats-server, own node. Prints a table on
// stdout and writes bench/results/launch.json. See bench/README.md.
import { BRIBE_BASE, BUY_AMOUNT, CHAIN_ID, P, POOL_ETH, POOL_TOKENS, RESULTS, run, startedAt, state } from './context.js';
import { report } from './report.js';
import { runScenarios } from './scenarios.js';

const t0 = performance.now();
await run.complete(async () => {
  const out = await runScenarios();
  const totalSeconds = (performance.now() - t0) / 1000;
  const { text, targets, errors } = report(out.results, totalSeconds, out.machine);
  const json = {
    ...run.resultsHead('launch', { startedAt, totalSeconds, machine: out.machine, nats: out.nats }, P, {
      chainNodeUrl: out.node.url,
      intentServiceEnv: Object.fromEntries(
        Object.entries<any>(out.intentEnv).filter(([k]) =>
          /^(CHAIN_IDS|LAUNCH_|SIGNER_|WEBHOOK_|EXECUTION_|RPC_URL_|WS_URL_|MEMPOOL_|RELAY_URLS_|PENDING_NONCES_|ORDERED_BATCHES_|HARDFORK_|DEX_|WRAPPED_|LOG_FORMAT)/.test(
            k,
          ),
        ),
      ),
      intent: {
        chainId: CHAIN_ID,
        wallet: `hardhat account 1 + (i mod ${P.wallets})`,
        buyAmount: BUY_AMOUNT.toString(),
        bribe: `${BRIBE_BASE} + (N - i) wei (distinct, descending with i)`,
        gasTip: '0',
        expiry: 'now + 1 h',
        webhookUrl: 'the signing webhook',
        webhookBatch: P.webhookBatch,
        limits: 'none (no minOut, slippage, taxes, liquidity)',
      },
      cpuProfile: state.profileDir,
      launch: { token: '@uniswap/v2-core ERC20, fresh per launch', pool: `${POOL_TOKENS} tokens + ${POOL_ETH} wei through addLiquidityETH` },
    }),
    targets,
    errors,
    deployment: out.results.deployment,
    summary: out.results.summary,
    runs: out.results.runs,
    failureSamples: out.results.failureSamples,
    childLogs: out.results.childLogs,
  };
  return { path: RESULTS, json, text, errors, targetsMet: Object.values<any>(targets).every((t) => t.met) };
});
