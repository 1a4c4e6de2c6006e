import { buildOpenApiDocument } from './openapi.js';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  components: { headers: Record<string, unknown>; schemas: { Error: { properties: { name: { enum: string[] } } } } };
};

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument() as unknown as Doc;

  it('documents /ready (Postgres and NATS only) and /health/services', () => {
    expect(doc.paths['/ready']!.get!.responses['503']!.headers).toHaveProperty('Retry-After');
    expect(doc.paths['/health/services']!.get!.responses).toHaveProperty('200');
  });

  it('documents the headers: WWW-Authenticate on 401, Retry-After on 429 and 503, X-RateLimit-* on answers to a key', () => {
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'WWW-Authenticate']),
    );
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(`${where}: ${Object.keys(op.responses['401']?.headers ?? {})}`).toBe(`${where}: WWW-Authenticate`);
        expect(`${where}: ${Object.keys(op.responses['503']?.headers ?? {})}`).toBe(`${where}: Retry-After`);
        expect(op.responses['429']?.headers).toHaveProperty('Retry-After');
        const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))!;
        expect(success[1].headers).toHaveProperty('X-RateLimit-Reset');
      }
    }
    expect(doc.components.schemas.Error.properties.name.enum).toContain('RequestTimeout');
  });

  it('documents batch create and bulk cancel (DELETE and its POST alias) with examples', () => {
    const paths = doc.paths as unknown as Record<string, Record<string, Record<string, any>>>;
    const create = paths['/v1/intents']!.post!;
    expect(create.requestBody.content['application/json'].example).toHaveLength(2);
    expect(create.responses['201'].content['application/json'].example).toHaveLength(2);
    expect(paths['/v1/intents']!.delete!.requestBody.content['application/json'].example.ids).toHaveLength(3);
    expect(paths['/v1/intents/cancel']!.post!.responses['200'].content['application/json'].example.map((r: { reason: string | null }) => r.reason)).toEqual([
      null,
      'not_pending',
      'not_found',
    ]);
    const schemas = doc.components.schemas as unknown as Record<string, any>;
    expect(schemas.CreateIntents).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(schemas.BulkCancel.properties.ids).toMatchObject({ minItems: 1, maxItems: 500 });
  });
});
