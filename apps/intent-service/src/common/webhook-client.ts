import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, localInterfaceAddresses, WebhookRefused, type WebhookPolicy } from './webhook-target.js';

export { WebhookRefused } from './webhook-target.js';

/** Resolves a host name to every address it has (the system resolver by default: /etc/hosts, then DNS). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The webhook did not answer within the deadline (connection, request and answer included). */
export class WebhookTimeout extends Error {
  override readonly name = 'WebhookTimeout';
}

export interface WebhookClientOptions extends WebhookPolicy {
  /** Name resolution; tests inject one (e.g. a rebinding resolver). */
  resolver?: Resolver;
  /** This host's own addresses (refused like private ones); read from the interfaces by default. */
  localAddresses?: () => ReadonlySet<string>;
  /** Why an address may not be connected to (null: it may); `addressRefusal` by default. */
  classify?: (address: string, local: ReadonlySet<string>) => string | null;
}

export interface WebhookAnswer {
  status: number;
  /** The answer's body, or null when it was longer than `maxBodyBytes` (then not read further). */
  body: string | null;
  /** The address the connection went to. */
  remoteAddress: string | undefined;
}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  /** Bound on the whole exchange: resolution, connection, request and answer. */
  timeoutMs: number;
  /** Most bytes of the answer kept (default 64 KiB). */
  maxBodyBytes?: number;
}

/**
 * The one HTTP client for URLs tenants give us (notification and signing webhooks): it connects
 * only to the addresses it resolved and checked (public unicast unless WEBHOOK_ALLOW_PRIVATE),
 * keeps TLS and `Host` on the host name, and never follows a redirect (docs/design/webhooks.md).
 */
export class WebhookClient {
  private readonly resolver: Resolver;
  private readonly localAddresses: () => ReadonlySet<string>;
  private readonly classify: (address: string, local: ReadonlySet<string>) => string | null;
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });

  constructor(private readonly options: WebhookClientOptions) {
    this.resolver = options.resolver ?? systemResolver;
    this.localAddresses = options.localAddresses ?? localInterfaceAddresses;
    this.classify = options.classify ?? addressRefusal;
  }

  /** Throws WebhookRefused when the address may not be connected to. */
  private check(address: string, host: string): void {
    if (this.options.WEBHOOK_ALLOW_PRIVATE) return;
    const why = this.classify(address, this.localAddresses());
    if (!why) return;
    const literal = host.replace(/^\[|\]$/g, '') === address;
    throw new WebhookRefused(literal ? `refused: ${host} is ${why}` : `refused: ${host} resolves to ${address}, ${why}`);
  }

  /** The `lookup` node:net calls instead of resolving by itself: one resolution, every address checked. */
  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolver(hostname)
      .then((resolved) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = resolved.filter((a) => family === 0 || a.family === family);
        if (addresses.length === 0) {
          throw Object.assign(new Error(`${hostname} has no ${family ? `IPv${family} ` : ''}address`), { code: 'ENOTFOUND' });
        }
        // Every address, not only the first: one private answer among public ones refuses the host.
        for (const a of resolved) this.check(a.address, hostname);
        if (options.all)
          callback(
            null,
            addresses.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0));
  };

  /** The URL if its scheme (and, for an address literal, its address) may be called; else WebhookRefused. */
  target(url: string | URL): URL {
    const target = typeof url === 'string' ? new URL(url) : url;
    if (target.protocol !== 'https:' && !(this.options.WEBHOOK_ALLOW_HTTP && target.protocol === 'http:')) {
      throw new WebhookRefused(`refused: ${target.protocol} webhooks are not allowed`);
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) this.check(host, target.hostname);
    return target;
  }

  /**
   * POSTs `body` and returns the status and (up to `maxBodyBytes` of) the answer. Rejects with
   * WebhookRefused (scheme or address not allowed), WebhookTimeout, or the connection's error.
   * A kept-alive connection the webhook closed while idle is retried once on a new one.
   */
  post(url: string | URL, options: PostOptions): Promise<WebhookAnswer> {
    let target: URL;
    try {
      target = this.target(url);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return this.attempt(target, options, performance.now() + options.timeoutMs, true);
  }

  private attempt(target: URL, options: PostOptions, deadline: number, mayRetry: boolean): Promise<WebhookAnswer> {
    const maxBody = options.maxBodyBytes ?? 64 * 1024;
    const secure = target.protocol === 'https:';
    return new Promise<WebhookAnswer>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const req = (secure ? https : http).request(
        {
          method: 'POST',
          hostname: target.hostname.replace(/^\[|\]$/g, ''),
          port: target.port || (secure ? 443 : 80),
          path: `${target.pathname}${target.search}`,
          headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
          agent: secure ? this.httpsAgent : this.httpAgent,
          lookup: this.lookup,
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const remoteAddress = res.socket?.remoteAddress;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBody) {
              res.destroy();
              settle(() => resolve({ status: res.statusCode ?? 0, body: null, remoteAddress }));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => settle(() => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), remoteAddress })));
          res.on('error', (err) => settle(() => reject(err)));
        },
      );
      const timer = setTimeout(
        () => {
          const err = new WebhookTimeout(`no answer within ${options.timeoutMs} ms`);
          settle(() => reject(err));
          req.destroy(err);
        },
        Math.max(0, deadline - performance.now()),
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (mayRetry && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          settle(() => resolve(this.attempt(target, options, deadline, false)));
        } else {
          settle(() => reject(err));
        }
      });
      req.end(options.body);
    });
  }

  /** Closes the kept-alive connections (Nest calls it at shutdown, after every delivery ended). */
  onApplicationShutdown(): void {
    this.close();
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
