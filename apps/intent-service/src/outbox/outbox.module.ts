import { Module } from '@nestjs/common';
import { EventsPublisher } from './events.publisher.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';

@Module({
  providers: [OutboxRepository, EventsPublisher, OutboxRelay],
  exports: [OutboxRepository, EventsPublisher, OutboxRelay],
})
export class OutboxModule {}
