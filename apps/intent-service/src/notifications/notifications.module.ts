import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { NotificationsController } from './notifications.controller.js';
import { Notifier } from './notifier.js';
import { SigningSecrets } from './signing-secrets.js';
import { SigningSecretsRepository } from './signing-secrets.repository.js';

@Module({
  imports: [OutboxModule],
  controllers: [NotificationsController],
  providers: [SigningSecretsRepository, SigningSecrets, Notifier],
  exports: [SigningSecrets],
})
export class NotificationsModule {}
