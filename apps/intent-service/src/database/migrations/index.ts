import { CreateIntents1763800000000 } from './1763800000000-CreateIntents.js';
import { NotificationWebhooks1763950000000 } from './1763950000000-NotificationWebhooks.js';
import { LaunchWatcher1764000000000 } from './1764000000000-LaunchWatcher.js';
import { Execution1764100000000 } from './1764100000000-Execution.js';
import { SigningSecretVersions1764200000000 } from './1764200000000-SigningSecretVersions.js';

/** Every migration of the intent schema, oldest first. */
export const migrations = [CreateIntents1763800000000, NotificationWebhooks1763950000000, LaunchWatcher1764000000000, Execution1764100000000, SigningSecretVersions1764200000000];
