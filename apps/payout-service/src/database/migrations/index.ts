import { CreateLedger1763900000000 } from './1763900000000-CreateLedger.js';
import { AdminAudit1764200000000 } from './1764200000000-AdminAudit.js';

/** Every migration of the payout schema, oldest first. */
export const migrations = [CreateLedger1763900000000, AdminAudit1764200000000];
