import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { INTENT_NOTIFICATION_SECRET, parseInput, uuid, type TenantScoped } from '@tradeinfra/contracts';
import { SigningSecrets } from './signing-secrets.js';

@Controller()
export class NotificationsController {
  constructor(private readonly secrets: SigningSecrets) {}

  /** The tenant's webhook signing secret. */
  @MessagePattern(INTENT_NOTIFICATION_SECRET)
  secret(@Payload() message: TenantScoped): { secret: string } {
    return { secret: this.secrets.secretFor(parseInput(uuid('a tenant id'), message.tenantId)) };
  }
}
