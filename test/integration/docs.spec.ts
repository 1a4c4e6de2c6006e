/**
 * The documentation against the repository: every relative link in the Markdown files resolves
 * (the file exists; a `#anchor` names a heading of it), and docs/configuration.md lists exactly
 * the environment variables the code reads (the apps' env schemas, service-kit's shared ones,
 * the scripts and the tools), and the create examples a reader copies pass the API's own
 * validation. No service is started.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspect } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// ---------------------------------------------------------------------------------------------
// Markdown: the files, their links, their headings

/** README.md, CONTRIBUTING.md, every Markdown file under docs/, bench/README.md and infra/. */
function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
  const top = ['README.md', 'CONTRIBUTING.md', 'bench/README.md'].map((f) => join(ROOT, f)).filter((f) => existsSync(f));
  return [...top, ...walk(join(ROOT, 'docs')), ...walk(join(ROOT, 'infra')).filter((f) => !f.includes('node_modules'))];
}

/** The text outside fenced code blocks and inline code spans (links in code are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length));
}

/** The targets of inline links and images (`[t](target)`, `![a](target)`) and of reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

/** The anchors GitHub gives a file's headings: lowercased, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, title] of withoutFences.matchAll(/^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = title!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or null when it resolves. */
function brokenLink(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null; // https:, mailto:, …
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!resolved.startsWith(ROOT)) return `${target}: outside the repository`;
  if (!existsSync(resolved)) return `${target}: ${relative(ROOT, resolved)} does not exist`;
  if (anchor === undefined || anchor === '') return null;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return null;
  const anchors = headingAnchors(readFileSync(resolved, 'utf8'));
  return anchors.has(decodeURIComponent(anchor).toLowerCase()) ? null : `${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`;
}

describe('documentation links', () => {
  const files = markdownFiles();

  it('finds the README and the docs', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/operations.md', 'bench/README.md']),
    );
  });

  it('every relative link in README.md, CONTRIBUTING.md, bench/ and docs/ resolves, anchors included', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const target of linkTargets(readFileSync(file, 'utf8'))) {
        checked += 1;
        const why = brokenLink(file, target);
        if (why) broken.push(`${relative(ROOT, file)}: ${why}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it('the checker itself: a missing file and a missing heading are caught, a good anchor passes', () => {
    const readme = join(ROOT, 'README.md');
    expect(brokenLink(readme, 'docs/no-such-file.md')).toMatch(/does not exist/);
    expect(brokenLink(readme, 'docs/configuration.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink(readme, 'docs/configuration.md#intent-service')).toBeNull();
    expect(headingAnchors('# A `code` Title: with (punctuation)\n## Dup\n## Dup\n')).toEqual(new Set(['a-code-title-with-punctuation', 'dup', 'dup-1']));
    expect(linkTargets('[a](x.md) `[b](y.md)` ![c](z.png "t")\n```\n[d](w.md)\n```\n[ref]: r.md')).toEqual(['x.md', 'z.png', 'r.md']);
  });
});

// ---------------------------------------------------------------------------------------------
// Environment variables: what the code reads against what docs/configuration.md lists

/** Placeholders of per-chain and per-asset names, as the docs write them (`RPC_URL_<chainId>`), compared as `<*>`. */
const PLACEHOLDER = '<*>';
const normalise = (name: string) => name.replace(/<[^>]+>/g, PLACEHOLDER);

/** A chain id and an asset symbol no code names, so a name holding one is a per-chain or per-asset pattern. */
const CHAIN = '987654';
const SYMBOL = 'QQSYMQQ';
const toPattern = (name: string) => name.replaceAll(CHAIN, PLACEHOLDER).replaceAll(SYMBOL, PLACEHOLDER);

/**
 * An environment that takes every app down its per-chain and per-asset branches: one chain
 * (CHAIN) with an endpoint, a WebSocket, a DEX, a treasury key and an executor, one asset (SYMBOL).
 */
const key = (byte: string) => `0x${byte.repeat(32)}`;
const address = (byte: string) => `0x${byte.repeat(20)}`;
const SAMPLE: Record<string, string> = {
  CHAIN_IDS: CHAIN,
  PAYOUT_CHAIN_IDS: CHAIN,
  PAYOUT_ASSETS: `${SYMBOL}:6`,
  [`RPC_URL_${CHAIN}`]: 'http://127.0.0.1:9',
  [`WS_URL_${CHAIN}`]: 'ws://127.0.0.1:9',
  [`DEX_FACTORY_${CHAIN}`]: address('11'),
  [`WRAPPED_NATIVE_${CHAIN}`]: address('22'),
  [`STABLE_PAIR_${CHAIN}`]: address('33'),
  [`EXECUTOR_${CHAIN}`]: address('44'),
  [`RELAYER_KEY_${CHAIN}`]: key('55'),
  [`PAYOUT_SIGNER_KEY_${CHAIN}`]: key('66'),
};

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * Calls `load` with an environment that records every variable it reads. `enumerable`: the
 * names `Object.keys` and friends see (the others are still answered when asked by name).
 */
function traceEnv(load: (source: NodeJS.ProcessEnv) => unknown, enumerable: string[]): { reads: Set<string>; result: string } {
  const reads = new Set<string>();
  const source = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_, name) => {
      if (typeof name === 'string' && ENV_NAME.test(name)) reads.add(name);
      return typeof name === 'string' ? SAMPLE[name] : undefined;
    },
    has: (_, name) => typeof name === 'string' && name in SAMPLE,
    ownKeys: () => enumerable,
    getOwnPropertyDescriptor: (_, name) =>
      typeof name === 'string' && enumerable.includes(name) ? { value: SAMPLE[name], enumerable: true, configurable: true, writable: true } : undefined,
  });
  let result: string;
  try {
    result = inspect(load(source), { depth: Infinity, sorted: true });
  } catch (err) {
    result = `threw: ${(err as Error).message}`;
  }
  return { reads, result };
}

/**
 * Every variable one app's loadEnv reads: those it asks for by name, and those it finds by
 * walking the environment (a name counts when leaving it out changes what loadEnv reads or
 * returns, e.g. the simulation service's `RPC_URL_<id>`).
 */
function readsOf(load: (source: NodeJS.ProcessEnv) => unknown): { reads: Set<string>; result: string } {
  const direct = traceEnv(load, []);
  const names = Object.keys(SAMPLE);
  const all = traceEnv(load, names);
  const reads = new Set(direct.reads);
  for (const name of all.reads) if (!names.includes(name)) reads.add(name);
  const signature = (t: { reads: Set<string>; result: string }) =>
    `${[...t.reads]
      .filter((n) => !names.includes(n))
      .sort()
      .join(',')}|${t.result}`;
  for (const name of names) {
    const without = traceEnv(
      load,
      names.filter((n) => n !== name),
    );
    if (signature(without) !== signature(all)) reads.add(name);
  }
  return { reads, result: direct.result };
}

/** The variable names a script reads: `process.env.X`, `env.X`, `env['X']`, and the bootstrap's `…Env: 'X'` table. */
function scriptReads(source: string): string[] {
  const patterns = [
    /\bprocess\.env\.([A-Z][A-Z0-9_]*)/g,
    /\benv\.([A-Z][A-Z0-9_]*)/g,
    /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g,
    /\b\w*Env:\s*['"]([A-Z][A-Z0-9_]*)['"]/g,
  ];
  return patterns.flatMap((p) => [...source.matchAll(p)].map((m) => m[1]!));
}

/** Production TypeScript outside the env schemas that reads `process.env.X` itself (CLIs). */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test' || e.name === 'node_modules' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The variables docs/configuration.md lists: the back-quoted names in the first cell of its tables' rows. */
function documentedVariables(): Map<string, string> {
  const documented = new Map<string, string>();
  for (const line of readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8').split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!cell) continue;
    for (const [, name] of cell.matchAll(/`([A-Z][A-Z0-9_]*(?:<[A-Za-z]+>[A-Z0-9_]*)*)`/g)) documented.set(normalise(name!), name!);
  }
  return documented;
}

describe('docs/configuration.md', () => {
  let read: Map<string, string>;
  const apps = readdirSync(join(ROOT, 'apps')).filter((app) => existsSync(join(ROOT, 'apps', app, 'src', 'config', 'env.ts')));

  beforeAll(async () => {
    const readers = new Map<string, Set<string>>();
    const note = (name: string, where: string) => {
      const pattern = toPattern(name);
      readers.set(pattern, (readers.get(pattern) ?? new Set()).add(where));
    };
    // Every app's environment, as its loadEnv reads it.
    for (const app of apps) {
      const module = (await import(pathToFileURL(join(ROOT, 'apps', app, 'src', 'config', 'env.ts')).href)) as {
        loadEnv: (source: NodeJS.ProcessEnv) => unknown;
      };
      const { reads, result } = readsOf(module.loadEnv);
      expect(`${app}: ${result.startsWith('threw') ? result : 'loads'}`).toBe(`${app}: loads`);
      for (const name of reads) note(name, app);
    }
    // service-kit's shared groups (NATS_ENV, HEALTH_ENV, …), whichever app spreads them.
    const kit = (await import('@tradeinfra/service-kit')) as unknown as Record<string, unknown>;
    for (const [group, shape] of Object.entries(kit)) {
      if (/^[A-Z_]+_ENV$/.test(group) && shape && typeof shape === 'object') for (const name of Object.keys(shape)) note(name, `service-kit ${group}`);
    }
    // The scripts (npm start/test, migrate, the CLIs' wrapper) and the database bootstrap.
    for (const dir of ['scripts', join('infra', 'postgres')]) {
      for (const file of readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.mjs'))) {
        for (const name of scriptReads(readFileSync(join(ROOT, dir, file), 'utf8'))) note(name, join(dir, file));
      }
    }
    // Production TypeScript that reads process.env itself (the executor's deploy command).
    const roots = [
      ...apps.map((a) => join('apps', a, 'src')),
      ...readdirSync(join(ROOT, 'packages'))
        .filter((p) => p !== 'test-support')
        .map((p) => join('packages', p, 'src')),
    ];
    for (const file of roots.flatMap((r) => sourceFiles(join(ROOT, r)))) {
      for (const [, name] of readFileSync(file, 'utf8').matchAll(/\bprocess\.env\.([A-Z][A-Z0-9_]*)/g)) note(name!, relative(ROOT, file));
    }
    read = new Map([...readers].map(([name, where]) => [name, [...where].join(', ')]));
  });

  it('reads the variables of every app, per-chain and per-asset patterns included', () => {
    expect(apps).toEqual(expect.arrayContaining(['gateway', 'intent-service', 'payout-service', 'simulation-service']));
    // The pattern forms the apps read: by name for the configured chains, by walking the
    // environment in the simulation service, and per asset in the payout service.
    for (const name of ['RPC_URL_<*>', 'HARDFORK_<*>', 'PAYOUT_TOKEN_<*>_<*>', 'NATS_URL', 'PGHOST', 'EMBEDDED_PG_DIR'])
      expect([...read.keys()]).toContain(name);
    expect(read.get('HARDFORK_<*>')).toBe('simulation-service');
    expect(read.get('RPC_URL_<*>')).toContain('simulation-service');
  });

  it('documents every variable the code reads', () => {
    const documented = documentedVariables();
    const undocumented = [...read.entries()].filter(([name]) => !documented.has(name)).map(([name, where]) => `${name} (read by ${where})`);
    expect(undocumented).toEqual([]);
  });

  it('documents no variable that nothing reads', () => {
    const stale = [...documentedVariables().entries()].filter(([name]) => !read.has(name)).map(([, name]) => name);
    expect(stale).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// The request examples: what a reader copies must pass the API's own validation

/** When the examples were written (their records' `createdAt`): the day their expiry is counted from. */
const EXAMPLES_WRITTEN = Date.parse('2026-11-23T21:40:12.345Z');

/** Each `POST <route>` body in the `http` blocks of `file` with nothing elided (no `…`), as parsed JSON. */
function postBodies(file: string, route: string): unknown[] {
  const bodies: unknown[] = [];
  for (const [, block] of readFileSync(join(ROOT, file), 'utf8').matchAll(/^```http\n([\s\S]*?)^```$/gm)) {
    const lines = block!.split('\n');
    if (lines[0] !== `POST ${route}`) continue;
    const start = lines.findIndex((l) => l.startsWith('{') || l.startsWith('['));
    const end = lines.findIndex((l, i) => i > start && /^\d{3} /.test(l));
    const body = lines.slice(start, end === -1 ? undefined : end).join('\n');
    if (start === -1 || body.includes('…')) continue;
    bodies.push(JSON.parse(body));
  }
  return bodies;
}

/** What the API's schemas give (zod's safeParse), as far as these checks read it. */
interface Schema {
  safeParse(value: unknown): { error?: { issues: { path: PropertyKey[]; message: string }[] } };
}

/** The validation messages `schema` gives `body` (none: it passes). */
const problems = (schema: Schema, body: unknown) => schema.safeParse(body).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('request examples', () => {
  const options = { chainIds: [1, 56, 137], now: () => EXAMPLES_WRITTEN };

  it('the create bodies of README.md and docs/api/ pass the API’s own validation, as of the day they were written', async () => {
    const contracts = await import('@tradeinfra/contracts');
    const cases: [string, string, Schema][] = [
      ['README.md', '/v1/intent', contracts.createIntentRequestSchema(options)],
      ['docs/api/intents.md', '/v1/intent', contracts.createIntentRequestSchema(options)],
      ['docs/api/intents.md', '/v1/intents', contracts.createIntentsBatchRequestSchema(options)],
      ['docs/api/exits.md', '/v1/exit', contracts.createExitRequestSchema(options)],
    ];
    for (const [file, route, schema] of cases) {
      const bodies = postBodies(file, route);
      expect({ file, route, found: bodies.length > 0 }).toEqual({ file, route, found: true });
      for (const body of bodies) expect({ file, route, problems: problems(schema, body) }).toEqual({ file, route, problems: [] });
    }
  });

  it('the check itself: an expiry past 30 days from the day they were written is caught', async () => {
    const { createIntentRequestSchema } = await import('@tradeinfra/contracts');
    const [body] = postBodies('README.md', '/v1/intent') as Record<string, unknown>[];
    expect(problems(createIntentRequestSchema(options), { ...body, expiry: 1893456000 })).toEqual(['expiry: must be at most 30 days ahead']);
  });
});
