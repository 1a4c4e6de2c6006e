import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { RpcErrorPayload } from '@tradeinfra/contracts';
import { natsRequest, ServiceReplyError } from '@tradeinfra/service-kit';

/** A NATS request/reply client speaking the services' wire format (service-kit's natsRequest), for service tests. */
export class TestRpcClient {
  private constructor(readonly nc: NatsConnection) {}

  static async connect(url: string): Promise<TestRpcClient> {
    return new TestRpcClient(await connect({ servers: url }));
  }

  /** Resolves with the service's answer, or rejects with its `{name, message, details}`. */
  async request<T>(subject: string, data: unknown, timeoutMs = 5_000): Promise<T> {
    try {
      return await natsRequest<T>(this.nc, subject, data, { timeoutMs });
    } catch (err) {
      if (err instanceof ServiceReplyError) throw Object.assign(new Error(err.payload.message), err.payload) as Error & RpcErrorPayload;
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}
