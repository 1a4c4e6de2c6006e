import { connect } from 'node:net';

/** One HTTP/1.1 response read off a raw socket. */
export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after (or instead of) answering. */
  closed: boolean;
  /** ms from the first byte written to the full response (or to the close). */
  ms: number;
}

export interface RawOptions {
  /** Give up (status 0) after this long without a full response. */
  timeoutMs?: number;
  /** Bytes written after the first chunk, one every `dripMs` (a slow client). */
  drip?: { bytes: Buffer; everyMs: number };
  /** A HEAD request: the response has headers only, whatever its Content-Length says. */
  head?: boolean;
}

/**
 * Writes `request` as is on a fresh connection to `baseUrl` (nothing checked or fixed: wrong
 * lengths, bad header bytes and all) and reads the first response. Status 0: no response.
 */
export function rawRequest(baseUrl: string, request: string | Buffer, options: RawOptions = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let settled = false;
    let drip: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      if (settled) return;
      const parsed = parse(data, options.head ?? false);
      if (!parsed && !closed) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(drip);
      socket.destroy();
      resolve({ ...(parsed ?? { status: 0, headers: {}, body: data.toString('latin1') }), closed, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(request);
    if (options.drip) {
      let next = 0;
      const bytes = options.drip.bytes;
      drip = setInterval(() => {
        if (next >= bytes.length || socket.destroyed) return clearInterval(drip);
        socket.write(bytes.subarray(next, next + 1));
        next++;
      }, options.drip.everyMs);
    }
  });
}

/**
 * The first complete final response in `data` (interim 1xx responses skipped; the body framed by
 * Content-Length; none for HEAD, 204 and 304, or when the response is streamed without a
 * length), or null while incomplete.
 */
function parse(data: Buffer, head: boolean): Omit<RawResponse, 'closed' | 'ms'> | null {
  for (;;) {
    const end = data.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
    if (status >= 100 && status < 200) {
      data = data.subarray(end + 4);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodiless = head || status === 204 || status === 304 || headers['content-length'] === undefined;
    const length = bodiless ? 0 : Number(headers['content-length']);
    const body = data.subarray(end + 4);
    if (body.length < length) return null;
    return { status, headers, body: body.subarray(0, length).toString('utf8') };
  }
}

/** `METHOD path HTTP/1.1` with `headers` and `body`, Content-Length as given (or the body's). */
export function httpRequest(method: string, path: string, headers: Record<string, string>, body: Buffer | string = ''): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const all: Record<string, string> = { host: 'gateway', ...headers };
  if (!('content-length' in all) && !('transfer-encoding' in all) && bytes.length > 0) all['content-length'] = String(bytes.length);
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}
