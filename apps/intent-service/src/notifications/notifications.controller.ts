import { Controller } from '@nestjs/common';
import { NATS_ROUTES, parseInput, uuid, type TenantScoped } from '@tradeinfra/contracts';
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { SigningSecrets } from './signing-secrets.js';

@Controller()
export class NotificationsController {
  constructor(private readonly secrets: SigningSecrets) {}

  /** The tenant's webhook signing secret. */
  @Handles(NATS_ROUTES.intentNotificationSecret)
  async secret(@RouteMessage(NATS_ROUTES.intentNotificationSecret) message: TenantScoped): Promise<{ secret: string }> {
    return { secret: await this.secrets.secretFor(parseInput(uuid('a tenant id'), message.tenantId)) };
  }

  /** A new signing secret for the tenant: notifications and signing requests are signed with it from now on. */
  @Handles(NATS_ROUTES.intentNotificationSecretRotate)
  async rotate(@RouteMessage(NATS_ROUTES.intentNotificationSecretRotate) message: TenantScoped): Promise<{ secret: string }> {
    return { secret: await this.secrets.rotate(parseInput(uuid('a tenant id'), message.tenantId)) };
  }
}
