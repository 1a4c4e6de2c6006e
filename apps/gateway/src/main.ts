import { createGateway, createLogger } from './bootstrap.js';
import { loadEnv } from './config/env.js';

const env = loadEnv();
const logger = createLogger(env);
try {
  await createGateway(env, logger);
  logger.log(`listening on http://${env.HOST}:${env.PORT} (API reference at /docs), NATS ${env.NATS_URL}`, 'Gateway');
} catch (err) {
  logger.fatal(`failed to start: ${(err as Error).message}`, 'Gateway');
  process.exit(1);
}
