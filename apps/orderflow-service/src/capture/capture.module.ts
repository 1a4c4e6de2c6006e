import { Module } from '@nestjs/common';
import { IntakeModule } from '../intake/intake.module.js';
import { CapturesRepository } from './captures.repository.js';
import { Crediting } from './crediting.js';
import { OutboxRepository } from './outbox.repository.js';

/** Captures, their crediting and the outbox of MEV-capture events. */
@Module({
  imports: [IntakeModule],
  providers: [CapturesRepository, OutboxRepository, Crediting],
  exports: [CapturesRepository, Crediting],
})
export class CaptureModule {}
