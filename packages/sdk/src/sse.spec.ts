import { SseParser, type SseMessage } from './sse.js';

/** Feeds `text` cut into pieces of `size` characters, collecting every event and comment. */
function feed(text: string, size: number): { events: SseMessage[]; comments: string[] } {
  const comments: string[] = [];
  const parser = new SseParser((c) => comments.push(c));
  const events: SseMessage[] = [];
  for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
  return { events, comments };
}

describe('SseParser', () => {
  const stream =
    ': connected\n\n' +
    'id: 0193a1\nevent: created\ndata: {"id":"0193a1","type":"created"}\n\n' +
    ': ping\n\n' +
    'id: 0193a2\r\nevent: cancelled\r\ndata: {"id":"0193a2",\r\ndata: "type":"cancelled"}\r\n\r\n';

  it('reads events, ids, multi-line data and heartbeat comments, whatever the chunking', () => {
    for (const size of [1, 2, 3, 7, 16, stream.length]) {
      const { events, comments } = feed(stream, size);
      expect(events).toEqual([
        { event: 'created', id: '0193a1', data: '{"id":"0193a1","type":"created"}' },
        { event: 'cancelled', id: '0193a2', data: '{"id":"0193a2",\n"type":"cancelled"}' },
      ]);
      expect(comments).toEqual(['connected', 'ping']);
    }
  });

  it('takes \\r alone as a line end, also when the \\n of a \\r\\n arrives in the next chunk', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push('\ndata: b\r\r')).toEqual([{ event: 'message', data: 'a\nb', id: '' }]);
    expect(parser.push('data:c\r\n\r\n')).toEqual([{ event: 'message', data: 'c', id: '' }]);
  });

  it('follows the spec on the edges: one space dropped, no-data events not dispatched, unknown fields ignored, NUL ids ignored, retry kept', () => {
    const parser = new SseParser();
    const out = parser.push('event: x\n\n' + 'data:  two spaces\nfoo: bar\nid: a\u0000b\nretry: 1500\n\n' + 'data\n\n');
    expect(out).toEqual([
      { event: 'message', data: ' two spaces', id: '' },
      { event: 'message', data: '', id: '' },
    ]);
    expect(parser.retryMs).toBe(1500);
  });

  it('keeps the last event id across events and a reset, and drops a half-received event on reset', () => {
    const parser = new SseParser();
    parser.push('id: 7\ndata: first\n\n');
    parser.push('event: created\ndata: half');
    parser.reset();
    expect(parser.lastId).toBe('7');
    expect(parser.push('data: next\n\n')).toEqual([{ event: 'message', data: 'next', id: '7' }]);
  });
});
