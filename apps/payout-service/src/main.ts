import { createLogger, createPayoutService } from './bootstrap.js';
import { loadEnv } from './config/env.js';

const env = loadEnv();
const logger = createLogger(env);
try {
  await createPayoutService(env, logger);
  logger.log(`listening on ${env.NATS_URL} (queue payout-service), consuming MEV_CAPTURE; assets ${[...env.PAYOUT_ASSETS.keys()].join(', ')}`);
} catch (err) {
  logger.fatal(`failed to start: ${(err as Error).message}`);
  process.exit(1);
}
