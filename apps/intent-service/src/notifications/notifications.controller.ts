import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { INTENT_NOTIFICATION_SECRET, INTENT_NOTIFICATION_SECRET_ROTATE, parseInput, uuid, type TenantScoped } from '@tradeinfra/contracts';
import { SigningSecrets } from './signing-secrets.js';

@Controller()
export class NotificationsController {
  constructor(private readonly secrets: SigningSecrets) {}

  /** The tenant's webhook signing secret. */
  @MessagePattern(INTENT_NOTIFICATION_SECRET)
  async secret(@Payload() message: TenantScoped): Promise<{ secret: string }> {
    return { secret: await this.secrets.secretFor(parseInput(uuid('a tenant id'), message.tenantId)) };
  }

  /** A new signing secret for the tenant: notifications and signing requests are signed with it from now on. */
  @MessagePattern(INTENT_NOTIFICATION_SECRET_ROTATE)
  async rotate(@Payload() message: TenantScoped): Promise<{ secret: string }> {
    return { secret: await this.secrets.rotate(parseInput(uuid('a tenant id'), message.tenantId)) };
  }
}
