import { Logger } from '@nestjs/common';
import type { IntentServiceEnv } from '../config/env.js';

export type IntentFailpoint = NonNullable<IntentServiceEnv['INTENT_FAILPOINT']>;

let fired = false;

/** Tests only (INTENT_FAILPOINT): the process dies here, as a kill -9 would take it, the first time it passes `at`. */
export function failpoint(env: Pick<IntentServiceEnv, 'INTENT_FAILPOINT'>, at: IntentFailpoint): void {
  if (fired || env.INTENT_FAILPOINT !== at) return;
  fired = true;
  new Logger('Failpoint').warn(`INTENT_FAILPOINT=${at}: killing this process`);
  process.kill(process.pid, 'SIGKILL');
}
