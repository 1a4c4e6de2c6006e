import { createIntentService, createLogger } from './bootstrap.js';
import { loadEnv } from './config/env.js';

const env = loadEnv();
const logger = createLogger(env);
createIntentService(env, logger)
  .then(() => logger.log(`listening on ${env.NATS_URL} (queue intent-service), chains ${env.CHAIN_IDS.join(', ')}`))
  .catch((err: Error) => {
    logger.fatal(`failed to start: ${err.message}`);
    process.exit(1);
  });
