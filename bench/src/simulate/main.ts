// Bundle-simulation benchmark: `npm run bench:simulate` (which installs, builds and migrates first).
//
//   1. a local hardhat@2 node (chain id 1, Prague, base fee 0) with an ERC20 pair, WETH9 and
//      Uniswap V2 (factory + router02) deployed and two pools seeded
//   2. WARM: gateway → NATS → simulation service → node directly; latency at concurrency 1 and
//      throughput at BENCH_CONCURRENCY, for an ERC20 transfer and an approve + swap bundle
//   3. NODE: the same work as the node's own eth_call and debug_traceCall (default struct logger)
//   4. COLD: a simulation service whose RPC goes through test-support's JsonRpcProxy (+20 ms per HTTP
//      request); before each sample an empty block is mined so the (chain, block) cache is cold;
//      latency and upstream round trips per request, with the block explicit and with `latest`
// Own database (ti_bench_<pid>_<random>, dropped at the end), own nats-server, own node.
// Prints a table on stdout and writes bench/results/simulate.json. See bench/README.md.
import { DEADLINE, P, POOL, RESULTS, SWAP_AMOUNT_IN, TRANSFER_AMOUNT, env, run, startedAt, state } from './context.js';
import { report } from './report.js';
import { main } from './scenarios.js';

// ---------------------------------------------------------------- run

const t0 = performance.now();
await run.complete(async () => {
  const out = await main();
  const totalSeconds = (performance.now() - t0) / 1000;
  const { text, targets, errors } = report(out, totalSeconds, out.machine);
  const json = {
    ...run.resultsHead('simulate', { startedAt, totalSeconds, machine: out.machine, nats: out.nats }, P, {
      chainNodeUrl: out.node.url,
      gatewayEnv: {
        RATE_LIMIT_PER_SECOND: 1000000,
        RATE_LIMIT_BURST: 1000000,
        LOG_FORMAT: 'json',
        SIMULATE_TIMEOUT_MS: env.SIMULATE_TIMEOUT_MS ?? '15000 (default)',
      },
      simulationServiceEnv: {
        RPC_URL_1: 'warm: the node; cold: the delay proxy',
        HARDFORK_1: "unset: the service picks the fork from mainnet's schedule (osaka/bpo2 at the node's time)",
        SIM_CACHE_MAX_MB: env.SIM_CACHE_MAX_MB ?? '256 (default)',
        SIM_UPSTREAM_TIMEOUT_MS: env.SIM_UPSTREAM_TIMEOUT_MS ?? '10000 (default)',
        SIM_RPC_BATCH_MAX: env.SIM_RPC_BATCH_MAX ?? '200 (default)',
      },
      cpuProfile: process.env.BENCH_CPU_PROF === '1' ? state.profileDir : null,
      workloads: {
        transfer: `tokenA.transfer(recipient, ${TRANSFER_AMOUNT}) from the deployer`,
        swap: `tokenA.approve(router, ${SWAP_AMOUNT_IN}) then router.swapExactTokensForTokens(${SWAP_AMOUNT_IN}, 0, [tokenA, tokenB], deployer, ${DEADLINE}) from the deployer (allowance 0 on chain); pool ${POOL}/${POOL}`,
        swapUnseen:
          'the approve + swap from a new random sender every request (tokenA balanceOf[sender] set by a storage override): a bundle shape never seen before (cold rows only)',
        nodeSwap: 'router.swapExactTokensForTokens from a second account that approved the router on chain (eth_call and debug_traceCall take one call)',
        nodeTracer: 'debug_traceCall with no tracer option (hardhat refuses callTracer): the struct logger with stack, memory and storage',
        cold: 'evm_mine before each sample, so the new head is in no cache; block explicit (= new head) or omitted (latest)',
      },
    }),
    targets,
    errors,
    deployment: out.results.deployment,
    scenarios: out.results.scenarios,
    cold: out.results.cold,
    proxyTotals: out.results.proxyTotals,
    sampleAnswers: out.results.sampleAnswers,
    childLogs: out.results.childLogs,
  };
  return { path: RESULTS, json, text, errors, targetsMet: Object.values<any>(targets).every((t) => t.met) };
});
