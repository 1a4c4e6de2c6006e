import { Module } from '@nestjs/common';
import { IntakeModule } from '../intake/intake.module.js';
import { CapturesRepository } from './captures.repository.js';
import { Crediting } from './crediting.js';

/** Captures, their crediting and the outbox of MEV-capture events. */
@Module({
  imports: [IntakeModule],
  providers: [CapturesRepository, Crediting],
  exports: [CapturesRepository, Crediting],
})
export class CaptureModule {}
