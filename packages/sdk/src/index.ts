export { TradeInfraClient, IntentsApi, NotificationsApi, PayoutsApi, CashbackApi, SourcesApi } from './client.js';
export { IntentEventStream, type EventStreamOptions } from './events.js';
export { ApiError, ConnectionError, WebhookVerificationError, type ApiErrorName } from './errors.js';
export {
  verifyWebhook,
  signWebhook,
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookPayload,
} from './webhook.js';
export { SseParser, type SseMessage } from './sse.js';
export { backoffDelay, parseRetryAfter, retryDelay, type BackoffOptions } from './backoff.js';
export { SDK_VERSION, type ClientOptions, type CreateOptions, type Page, type RequestOptions, type RetryInfo } from './transport.js';
export * from './types.js';
