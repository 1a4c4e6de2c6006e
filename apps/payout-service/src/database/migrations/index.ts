import { CreateLedger1763900000000 } from './1763900000000-CreateLedger.js';

/** Every migration of the payout schema, oldest first. */
export const migrations = [CreateLedger1763900000000];
