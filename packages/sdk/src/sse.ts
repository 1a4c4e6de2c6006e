/** One dispatched server-sent event. */
export interface SseMessage {
  /** `event:` field; `message` when the event named none. */
  event: string;
  /** `data:` lines joined with `\n`. */
  data: string;
  /** The last event id seen on the stream (`id:`), or '' when none yet. */
  id: string;
}

/**
 * An incremental `text/event-stream` parser (WHATWG "event stream interpretation"): feed it text
 * in chunks cut anywhere; it returns the events each chunk completed, and reports comments
 * (heartbeats) through `onComment` (docs/design/code-notes.md#sse-parser).
 */
export class SseParser {
  private buffer = '';
  /** A chunk ended with `\r`: a `\n` starting the next chunk belongs to that line end. */
  private pendingCr = false;
  private data: string[] = [];
  private eventType = '';
  private lastEventId = '';
  /** The reconnection time the server asked for (`retry:` field, ms), if any. */
  retryMs: number | undefined;

  constructor(private readonly onComment: (text: string) => void = () => undefined) {}

  push(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    let text = chunk;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buffer.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
      const message = this.line(line);
      if (message) out.push(message);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** Forgets a partly received event (the connection dropped mid-event); keeps the last event id. */
  reset(): void {
    this.buffer = '';
    this.pendingCr = false;
    this.data = [];
    this.eventType = '';
  }

  get lastId(): string {
    return this.lastEventId;
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.onComment(line.slice(1).replace(/^ /, ''));
      return null;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\u0000')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    const data = this.data;
    const event = this.eventType || 'message';
    this.data = [];
    this.eventType = '';
    if (data.length === 0) return null;
    return { event, data: data.join('\n'), id: this.lastEventId };
  }
}
