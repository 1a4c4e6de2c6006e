import { Module } from '@nestjs/common';
import { ChainRegistry } from './chain-registry.js';

@Module({
  providers: [ChainRegistry],
  exports: [ChainRegistry],
})
export class ChainModule {}
