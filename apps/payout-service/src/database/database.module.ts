import { Global, Module, type OnApplicationShutdown, Inject } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ENV, type PayoutServiceEnv } from '../config/env.js';
import { createDataSource } from './data-source.js';

@Global()
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [ENV],
      useFactory: async (env: PayoutServiceEnv) => createDataSource(env).initialize(),
    },
  ],
  exports: [DataSource],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
