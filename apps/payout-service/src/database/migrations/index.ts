import { CreateLedger1763900000000 } from './1763900000000-CreateLedger.js';
import { AdminAudit1764200000000 } from './1764200000000-AdminAudit.js';
import { Settlement1764300000000 } from './1764300000000-Settlement.js';

/** Every migration of the payout schema, oldest first. */
export const migrations = [CreateLedger1763900000000, AdminAudit1764200000000, Settlement1764300000000];
