import { CreateApiKeys1763800000000 } from './1763800000000-CreateApiKeys.js';

/** Every migration of the gateway schema, oldest first. */
export const migrations = [CreateApiKeys1763800000000];
