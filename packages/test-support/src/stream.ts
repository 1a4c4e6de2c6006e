import { jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/** Everything a JetStream stream holds and receives, read with an ordered consumer. */
export class StreamCollector<T = unknown> {
  readonly messages: { subject: string; msgId: string | undefined; data: T }[] = [];
  private constructor(private readonly iterator: ConsumerMessages) {}

  static async start<T>(nc: NatsConnection, stream: string): Promise<StreamCollector<T>> {
    const js = jetstream(nc);
    const consumer = await js.consumers.get(stream);
    const iterator = await consumer.consume();
    const collector = new StreamCollector<T>(iterator);
    void (async () => {
      for await (const m of iterator) {
        collector.messages.push({ subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id'), data: m.json<T>() });
      }
    })();
    return collector;
  }

  get data(): T[] {
    return this.messages.map((m) => m.data);
  }

  async stop(): Promise<void> {
    await this.iterator.close();
  }
}
