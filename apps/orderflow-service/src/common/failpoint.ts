import { Logger } from '@nestjs/common';
import type { OrderflowServiceEnv } from '../config/env.js';

let fired = false;

/** Tests only (ORDERFLOW_FAILPOINT): the process dies here, as a kill -9 would take it, the first time it passes `at`. */
export function failpoint(env: Pick<OrderflowServiceEnv, 'ORDERFLOW_FAILPOINT'>, at: NonNullable<OrderflowServiceEnv['ORDERFLOW_FAILPOINT']>): void {
  if (fired || env.ORDERFLOW_FAILPOINT !== at) return;
  fired = true;
  new Logger('Failpoint').warn(`ORDERFLOW_FAILPOINT=${at}: killing this process`);
  process.kill(process.pid, 'SIGKILL');
}
