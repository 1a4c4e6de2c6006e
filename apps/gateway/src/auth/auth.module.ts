import { Module } from '@nestjs/common';
import { DashboardTokens } from '../dashboard/dashboard-tokens.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { RateLimits } from './auth.guard.js';

/**
 * What AuthGuard needs, for every module whose controllers use it: API keys, dashboard tokens
 * (the guard accepts them too) and the replica's rate limits (one instance, shared).
 */
@Module({
  providers: [ApiKeysRepository, ApiKeysService, DashboardTokens, RateLimits],
  exports: [ApiKeysRepository, ApiKeysService, DashboardTokens, RateLimits],
})
export class AuthModule {}
