import { createLogger, createSimulationService } from './bootstrap.js';
import { loadEnv } from './config/env.js';

const env = loadEnv();
const logger = createLogger(env);
try {
  await createSimulationService(env, logger);
  const chains = [...env.chains.values()].map((c) => `${c.chainId}${c.hardfork ? ` (${c.hardfork})` : ''}`);
  logger.log(`listening on ${env.NATS_URL} (queue simulation-service); chains with an RPC: ${chains.join(', ') || 'none (set RPC_URL_<chainId>)'}`);
} catch (err) {
  logger.fatal(`failed to start: ${(err as Error).message}`);
  process.exit(1);
}
