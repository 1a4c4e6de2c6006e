import { Module } from '@nestjs/common';
import { ServiceClient } from './service-client.js';

@Module({
  providers: [ServiceClient],
  exports: [ServiceClient],
})
export class NatsModule {}
