import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  remoteAddress: string | undefined;
}

/**
 * A real local HTTP server that records every TCP connection and request it gets (what a
 * webhook must never reach when private addresses are not allowed). Listens on all addresses,
 * IPv4 and IPv6, unless told one.
 */
export class RecordingListener {
  connections = 0;
  readonly requests: RecordedRequest[] = [];
  /** The answer to every request. */
  answer: { status: number; headers?: Record<string, string>; body?: string } = { status: 204 };
  private readonly server: Server;
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        this.requests.push({ url: req.url ?? '', headers: req.headers, body, remoteAddress: req.socket.remoteAddress });
        res.writeHead(this.answer.status, this.answer.headers).end(this.answer.body ?? '');
        for (const w of this.waiters.filter((w) => this.requests.length >= w.count)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve();
        }
      });
    });
    this.server.on('connection', () => this.connections++);
  }

  async start(host = '::', port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Resolves once `count` requests in all have arrived. */
  requestCount(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
