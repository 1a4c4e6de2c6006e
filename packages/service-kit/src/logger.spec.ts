import { createLogger, describeError, flushLogs } from './index.js';

function capture(work: () => void): string[] {
  const lines: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  const originalErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: unknown) => (lines.push(String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    work();
    flushLogs();
  } finally {
    process.stdout.write = original;
    process.stderr.write = originalErr;
  }
  return lines.join('').split('\n').filter(Boolean);
}

describe('createLogger', () => {
  it('with LOG_FORMAT=json writes one JSON object per line naming the service', () => {
    const logger = createLogger('payout-service', { LOG_FORMAT: 'json' });
    const lines = capture(() => {
      logger.log('hello', 'Ledger');
      logger.error('boom', undefined, 'Rpc');
      logger.warn({ a: 1 });
    });
    expect(lines).toHaveLength(3);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed[0]).toMatchObject({ service: 'payout-service', level: 'log', message: 'hello', context: 'Ledger', pid: process.pid });
    expect(parsed[1]).toMatchObject({ service: 'payout-service', level: 'error', message: 'boom', context: 'Rpc' });
    expect(parsed[2]).toMatchObject({ service: 'payout-service', level: 'warn' });
  });

  it('pretty lines carry the service as their prefix', () => {
    const lines = capture(() => createLogger('intent-service', { LOG_FORMAT: 'pretty' }).log('ready', 'Main'));
    expect(lines[0]).toMatch(/^\S*\[intent-service\] /);
    expect(lines[0]).toContain('ready');
  });

  it("pretty lines carry Nest's timestamp of the current second, also when it is remembered", () => {
    const realNow = Date.now;
    let now = Date.parse('2026-01-02T03:04:05.100Z');
    Date.now = () => now;
    try {
      const logger = createLogger('gateway', { LOG_FORMAT: 'pretty' });
      const formatter = new Intl.DateTimeFormat(undefined, {
        year: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        day: '2-digit',
        month: '2-digit',
      });
      const stamps: string[] = [];
      for (const advance of [0, 800, 200, 3600_000]) {
        now += advance;
        const [line] = capture(() => logger.log('x', 'Request'));
        expect(line).toContain(formatter.format(now));
        stamps.push(formatter.format(now));
      }
      expect(new Set(stamps).size).toBe(3); // 05.1 and 05.9 share a second; 06.1 and an hour later do not
    } finally {
      Date.now = realNow;
    }
  });
});

describe('the log lines', () => {
  it('go out together (within LOG_FLUSH_MS), and before a warning', () => {
    const logger = createLogger('gateway', { LOG_FORMAT: 'json' });
    const writes: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: unknown) => (writes.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      logger.log('one', 'Request');
      logger.log('two', 'Request');
      expect(writes).toEqual([]);
      logger.warn('three', 'Main');
      expect(
        writes.map((w) =>
          w
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l).message),
        ),
      ).toEqual([['one', 'two'], ['three']]);
      logger.log('four', 'Request');
      expect(writes).toHaveLength(2);
      flushLogs();
      expect(writes.slice(2).map((w) => JSON.parse(w).message)).toEqual(['four']);
    } finally {
      process.stdout.write = original;
    }
  });
});

describe('describeError', () => {
  it('a driver error: code, message with quoted values elided, and what it names', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "tenants_name_key"'), {
      code: '23505',
      table: 'tenants',
      constraint: 'tenants_name_key',
    });
    const typeorm = Object.assign(new Error(driverError.message), { driverError, query: 'INSERT INTO secret_sql', parameters: ['p1'] });
    const text = describeError(typeorm);
    expect(text).toBe('database error 23505: duplicate key value violates unique constraint "…" (table tenants, constraint tenants_name_key)');
    expect(text).not.toContain('secret_sql');
    expect(text).not.toContain('p1');
  });

  it('anything else: its stack', () => {
    const err = new Error('plain');
    expect(describeError(err)).toBe(err.stack);
    expect(describeError('text')).toBe('text');
  });
});
