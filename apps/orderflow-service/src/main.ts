import { createLogger, createOrderflowService } from './bootstrap.js';
import { loadEnv } from './config/env.js';

const env = loadEnv();
const logger = createLogger(env);
try {
  await createOrderflowService(env, logger);
  logger.log(`listening on ${env.NATS_URL} (queue orderflow-service); chains ${env.chains.map((c) => c.chainId).join(', ') || 'none'}`);
} catch (err) {
  logger.fatal(`failed to start: ${(err as Error).message}`);
  process.exit(1);
}
