import { CreateIntents1763800000000 } from './1763800000000-CreateIntents.js';
import { NotificationWebhooks1763950000000 } from './1763950000000-NotificationWebhooks.js';

/** Every migration of the intent schema, oldest first. */
export const migrations = [CreateIntents1763800000000, NotificationWebhooks1763950000000];
