import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Every address of this machine's interfaces, as a URL host (link-local ones need a zone a URL cannot carry). */
export const interfaceHosts = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .filter((a) => !a.address.toLowerCase().startsWith('fe80'))
  .map((a) => (a.family === 'IPv6' ? `[${a.address}]` : a.address));

/** The URL hosts that bypassed the old prefix checks, and the other local or private forms. */
export const HOSTILE_HOSTS = [
  '127.0.0.1',
  '0.0.0.0',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::ffff:a9fe:a9fe]',
  '[::ffff:10.0.0.1]',
  '[febf::1]',
  '[64:ff9b::7f00:1]',
  '[2002:7f00:1::1]',
  '[::7f00:1]',
  '169.254.169.254',
  '10.0.0.1',
  '100.64.0.1',
  '[fd00::1]',
  '[fec0::1]',
  '2130706433', // 127.0.0.1 as one number (the URL parser normalises it)
  '0x7f.1',
  ...interfaceHosts,
];

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
