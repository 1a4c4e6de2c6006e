import http from 'node:http';
import https from 'node:https';
import { JsonTooDeepError, parsePlainJson } from '@tradeinfra/contracts';

/** Why a request got no usable answer: none in time, none at all (connection, HTTP status), or not JSON (or nested deeper than MAX_JSON_DEPTH). */
export type HttpJsonFailure = 'timeout' | 'unreachable' | 'bad_answer';

/** The server did not answer (connection, timeout, HTTP status, not JSON), as opposed to answering with an error. */
export class HttpJsonUnavailable extends Error {
  constructor(
    readonly reason: HttpJsonFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * POSTs JSON and parses the JSON answer, on kept-alive connections: node:http rather than
 * fetch, at about half fetch's per-request cost (it counts for JSON-RPC to a chain node, where
 * requests follow each other). A request written to a kept-alive connection the server had just
 * closed while idle (reset, or a broken pipe) is sent again: it never reached the server. Several
 * may have closed at once (the client's event loop busy past the server's idle timeout): the
 * next attempt may take another of them, up to maxSockets.
 */
export class HttpJsonClient {
  private readonly target: URL;
  private readonly agent: http.Agent;

  constructor(
    url: string,
    private readonly timeoutMs: number,
    private readonly maxSockets = 16,
  ) {
    this.target = new URL(url);
    this.agent = new (this.target.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets });
  }

  post(payload: unknown): Promise<unknown> {
    return this.attempt(JSON.stringify(payload), this.maxSockets, {});
  }

  /** POSTs JSON text as it is (a body a header signs, say), with `headers` besides the content type. */
  postText(body: string, headers: Record<string, string> = {}): Promise<unknown> {
    return this.attempt(body, this.maxSockets, headers);
  }

  /** `retries`: kept-alive connections it may still find closed (each found so is destroyed: at most maxSockets). */
  private attempt(body: string, retries: number, headers: Record<string, string>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const fail = (reason: HttpJsonFailure, detail: string) => reject(new HttpJsonUnavailable(reason, detail));
      const req = (this.target.protocol === 'https:' ? https : http).request(
        this.target,
        {
          method: 'POST',
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => fail('unreachable', err.message));
          res.on('end', () => {
            if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) return fail('unreachable', `HTTP ${res.statusCode}`);
            try {
              resolve(parsePlainJson(Buffer.concat(chunks).toString('utf8')));
            } catch (err) {
              fail('bad_answer', err instanceof JsonTooDeepError ? `JSON nested deeper than ${err.maxDepth} levels` : 'not JSON');
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${this.timeoutMs} ms`), { code: 'TIMEOUT' })));
      req.on('error', (err) => {
        const code = (err as NodeJS.ErrnoException).code;
        if (retries > 0 && req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) resolve(this.attempt(body, retries - 1, headers));
        else if (code === 'TIMEOUT') fail('timeout', err.message);
        else fail('unreachable', code ?? err.message);
      });
      req.end(body);
    });
  }
}
