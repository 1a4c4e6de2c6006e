// `npm run -s executor:deploy -- --rpc URL --router ADDR [--weth ADDR]`: deploys one
// IntentExecutor with the key in EXECUTOR_DEPLOYER_KEY and prints its address (nothing else) on
// stdout; what was deployed, and the env line to set, go to stderr.
import { parseArgs } from 'node:util';
import { DeployError, deployExecutor } from '../deploy.js';

const USAGE = `usage: executor:deploy --rpc URL --router ADDRESS [--weth ADDRESS]
  --rpc     JSON-RPC URL of the chain's node
  --router  the chain's Uniswap-V2-style router
  --weth    the wrapped native token (default: the router's WETH())
The deployer's private key is read from EXECUTOR_DEPLOYER_KEY (never from a flag).`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { rpc: { type: 'string' }, router: { type: 'string' }, weth: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!values.rpc) throw new UsageError('--rpc is required');
  if (!values.router) throw new UsageError('--router is required');
  const privateKey = process.env.EXECUTOR_DEPLOYER_KEY?.trim();
  if (!privateKey) throw new UsageError('EXECUTOR_DEPLOYER_KEY is not set');
  const d = await deployExecutor({ rpcUrl: values.rpc, router: values.router, wrappedNative: values.weth, privateKey });
  process.stderr.write(
    `IntentExecutor deployed on chain ${d.chainId} at ${d.address} (tx ${d.txHash}, block ${d.blockNumber}, gas ${d.gasUsed}); ` +
      `router ${d.router}, factory ${d.factory}, wrapped native ${d.wrappedNative}\nset EXECUTOR_${d.chainId}=${d.address}\n`,
  );
  process.stdout.write(`${d.address}\n`);
}

main(process.argv.slice(2)).catch((err: Error) => {
  const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  const known = usage || err instanceof DeployError;
  // Never the error object itself: a library error could carry the request it failed on.
  process.stderr.write(`executor:deploy: ${known ? err.message : `${err.name}: ${err.message}`}\n${usage ? `${USAGE}\n` : ''}`);
  process.exit(usage ? 64 : 1);
});
