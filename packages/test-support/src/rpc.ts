import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeRpcReply, encodeRpcRequest, type RpcErrorPayload } from '@tradeinfra/contracts';
import { randomUUID } from 'node:crypto';

/** A bare NATS request/reply client speaking the services' wire format, for service tests. */
export class TestRpcClient {
  private constructor(readonly nc: NatsConnection) {}

  static async connect(url: string): Promise<TestRpcClient> {
    return new TestRpcClient(await connect({ servers: url }));
  }

  /** Resolves with the service's answer, or rejects with its `{name, message, details}`. */
  async request<T>(subject: string, data: unknown, timeoutMs = 5_000): Promise<T> {
    const msg = await this.nc.request(subject, encodeRpcRequest(subject, data, randomUUID()), { timeout: timeoutMs });
    const reply = decodeRpcReply<T>(msg.string());
    if (!reply.ok) throw Object.assign(new Error(reply.error.message), reply.error) as Error & RpcErrorPayload;
    return reply.value;
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}
