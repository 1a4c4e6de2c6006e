import { Module } from '@nestjs/common';
import { NatsConnections } from '@tradeinfra/service-kit';
import { ENV, type GatewayEnv } from '../config/env.js';
import { ServiceClient } from './service-client.js';

/** The gateway's one NATS connection (NatsConnections, options from natsConnectionOptions) and the client over it. */
@Module({
  providers: [
    {
      provide: NatsConnections,
      // noAsyncTraces: otherwise every request allocates two errors up front (a RequestError and a
      // TimeoutError, each capturing a stack) for a trace this client never logs: 6% of the
      // gateway's CPU per create. Failures keep their class, message and cause.
      useFactory: (env: GatewayEnv) => new NatsConnections(env, 'gateway', { noAsyncTraces: true }),
      inject: [ENV],
    },
    ServiceClient,
  ],
  exports: [ServiceClient],
})
export class NatsModule {}
