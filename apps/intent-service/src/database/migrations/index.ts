import { CreateIntents1763800000000 } from './1763800000000-CreateIntents.js';
import { NotificationWebhooks1763950000000 } from './1763950000000-NotificationWebhooks.js';
import { LaunchWatcher1764000000000 } from './1764000000000-LaunchWatcher.js';
import { Execution1764100000000 } from './1764100000000-Execution.js';
import { SigningSecretVersions1764200000000 } from './1764200000000-SigningSecretVersions.js';
import { StatusData1764300000000 } from './1764300000000-StatusData.js';
import { BatchIdempotency1764350000000 } from './1764350000000-BatchIdempotency.js';
import { WalletIntents1764400000000 } from './1764400000000-WalletIntents.js';
import { TenantSearch1764500000000 } from './1764500000000-TenantSearch.js';
import { PendingLaunches1764700000000 } from './1764700000000-PendingLaunches.js';
import { LaunchKind1764800000000 } from './1764800000000-LaunchKind.js';
import { WebhookBatch1764900000000 } from './1764900000000-WebhookBatch.js';
import { SignedTxStorage1765000000000 } from './1765000000000-SignedTxStorage.js';
import { LaunchFacts1765100000000 } from './1765100000000-LaunchFacts.js';
import { MerkleDropIn1765200000000 } from './1765200000000-MerkleDropIn.js';
import { Exits1765300000000 } from './1765300000000-Exits.js';
import { ExitApproveTx1765400000000 } from './1765400000000-ExitApproveTx.js';

/** Every migration of the intent schema, oldest first. */
export const migrations = [
  CreateIntents1763800000000,
  NotificationWebhooks1763950000000,
  LaunchWatcher1764000000000,
  Execution1764100000000,
  SigningSecretVersions1764200000000,
  StatusData1764300000000,
  BatchIdempotency1764350000000,
  WalletIntents1764400000000,
  TenantSearch1764500000000,
  PendingLaunches1764700000000,
  LaunchKind1764800000000,
  WebhookBatch1764900000000,
  SignedTxStorage1765000000000,
  LaunchFacts1765100000000,
  MerkleDropIn1765200000000,
  Exits1765300000000,
  ExitApproveTx1765400000000,
];
