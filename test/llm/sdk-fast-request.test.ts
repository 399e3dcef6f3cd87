// The vendored SDKs' request path patch (scripts/sdk-fast-request.mjs, issue 29): header merges without generators and
// the SDK's own AbortSignal built only when read. The patched SDK must send what the installed one sends and time out
// and abort the same. Run after `npm run build` (dist/node_modules).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error a build script, plain JS
import { fastRequest } from '../../scripts/sdk-fast-request.mjs';
import { CALL_HEADER, callSignalFetch, callSignalHeader } from '../../src/actors/llm/engines/common.js';

type Api = { create: (b: unknown, o: unknown) => { asResponse(): Promise<unknown> } };
type Client = { chat?: { completions: Api }; messages?: Api };
type Sdk = { default: new (opts: Record<string, unknown>) => Client };
type Kind = 'openai' | 'anthropic';
const SDKS = [['openai', 'openai'], ['@anthropic-ai/sdk', 'anthropic']] as const;

const vendored = (name: string): Promise<Sdk> => import(pathToFileURL(resolve('dist/node_modules', name, 'index.js')).href) as Promise<Sdk>;
const installed = (name: string): Promise<Sdk> => import(name) as Promise<Sdk>;
const api = (c: Client, kind: Kind): Api => (kind === 'openai' ? (c.chat as { completions: Api }).completions : (c.messages as Api));
const BODY = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }], stream: true };

interface Sent {
  url: string;
  method: unknown;
  headers: [string, string][];
  body: unknown;
  init: string[];
}

/** Everything the SDK hands its fetch, read the way a fetch reads it (headers lower-cased, in name order). */
function record(url: unknown, init: Record<string, unknown>): Sent {
  const h = init['headers'] as Iterable<[string, string]>;
  return { url: String(url), method: init['method'], headers: [...h].map(([k, v]): [string, string] => [k.toLowerCase(), v]).sort(), body: init['body'], init: Object.keys(init).sort() };
}

const ok = { ok: true, status: 200, url: 'http://127.0.0.1:9/v1/x', body: null, headers: { get: () => null, entries: () => [][Symbol.iterator]() } };

async function sent(sdk: Sdk, kind: Kind, client: Record<string, unknown>, call: Record<string, unknown>): Promise<Sent | string> {
  let out: Sent | undefined;
  const fetch = (url: unknown, init: Record<string, unknown>) => {
    out = record(url, init);
    return Promise.resolve(ok);
  };
  const c = new sdk.default({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch, ...client });
  try {
    await api(c, kind).create(BODY, call).asResponse();
  } catch (e) {
    return `${(e as Error).name}`;
  }
  return out ?? 'no request';
}

/** Client options × call options: defaults, overrides in other cases, removals (null), repeated values, each shape. */
const CLIENTS: Record<string, unknown>[] = [
  {},
  { defaultHeaders: { 'X-Team': 'a', 'User-Agent': 'mine/1', 'x-stainless-os': null } },
  { defaultHeaders: [['x-multi', '1'], ['X-Multi', '2']], timeout: 30_000 },
];
const CALLS: Record<string, unknown>[] = [
  {},
  { headers: { 'x-team': 'b', 'X-Extra': ['p', 'q'], 'x-none': undefined, Accept: 'text/event-stream' } },
  { headers: [['x-yagent-agent', 'a'], ['x-yagent-call', '7'], ['x-multi', '3']], timeout: 5_000 },
  { headers: { 'x-stainless-retry-count': null, 'x-multi': null, 'Content-Type': 'application/json' }, idempotencyKey: 'idem-1' },
];
const KIND_CLIENT: Record<Kind, Record<string, unknown>[]> = {
  openai: [{ organization: 'org', project: 'proj' }],
  anthropic: [{ apiKey: null, authToken: 'tok' }, { defaultHeaders: { 'anthropic-beta': 'b1', 'x-stainless-helper': 'h1' } }],
};

describe('the vendored SDKs send what the installed SDKs send (request-path patch)', () => {
  afterEach(() => vi.useRealTimers());

  for (const [name, kind] of SDKS) {
    it(`${name}: the same url, method, headers and body for every combination of client and call headers`, async () => {
      const [patched, stock] = [await vendored(name), await installed(name)];
      let n = 0;
      for (const client of [...CLIENTS, ...KIND_CLIENT[kind]]) {
        for (const call of CALLS) {
          const a = await sent(patched, kind, client, call);
          const b = await sent(stock, kind, client, call);
          expect(a, JSON.stringify({ client, call })).toEqual(b);
          if (typeof a !== 'string') n += 1;
        }
      }
      expect(n).toBeGreaterThan(10);
    });

    it(`${name}: its timeout and a caller's abort reach the fetch's signal as the installed SDK's do`, async () => {
      const outcomes: unknown[] = [];
      for (const sdk of [await vendored(name), await installed(name)]) {
        vi.useFakeTimers();
        const signals: AbortSignal[] = [];
        const fetch = (_u: unknown, init: { signal: AbortSignal }) =>
          new Promise((_r, reject) => {
            signals.push(init.signal);
            init.signal.addEventListener('abort', () => reject(init.signal.reason as Error));
          });
        const c = new sdk.default({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch, timeout: 1_000 });
        const said = (e: Error) => `${e.constructor.name}: ${e.message}`;
        const timedOut = api(c, kind).create(BODY, {}).asResponse().catch(said);
        await vi.advanceTimersByTimeAsync(999);
        const before = signals.map((s) => s.aborted);
        await vi.advanceTimersByTimeAsync(1);
        const caller = new AbortController();
        const cancelled = api(c, kind).create(BODY, { signal: caller.signal }).asResponse().catch(said);
        await vi.advanceTimersByTimeAsync(0);
        caller.abort();
        outcomes.push({ before, timedOut: await timedOut, cancelled: await cancelled, after: signals.map((s) => s.aborted) });
        vi.useRealTimers();
      }
      expect(outcomes[0]).toMatchObject({ before: [false], after: [true, true] });
      expect(outcomes[0]).toEqual(outcomes[1]);
    });

    it(`${name}: the SDK's own AbortSignal is built only when its fetch reads it`, async () => {
      let descriptor: PropertyDescriptor | undefined;
      const fetch = (_u: unknown, init: Record<string, unknown>) => {
        descriptor = Object.getOwnPropertyDescriptor(init, 'signal');
        return Promise.resolve(ok);
      };
      const c = new (await vendored(name)).default({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch });
      await api(c, kind).create(BODY, {}).asResponse();
      expect(typeof descriptor?.get).toBe('function');
      expect(descriptor?.enumerable).toBe(true);
    });
  }

  it("our fetch hands the call's signal on without reading the SDK's (nor building it)", async () => {
    const call = new AbortController();
    const { header } = callSignalHeader(call.signal);
    let reads = 0;
    let got: Record<string, unknown> | undefined;
    const inner = ((_u: unknown, init: Record<string, unknown>) => ((got = init), Promise.resolve(ok))) as unknown as typeof fetch;
    const init = {
      get signal() {
        reads += 1;
        return new AbortController().signal;
      },
      method: 'POST',
      headers: { [CALL_HEADER]: header, 'x-a': '1' },
      body: '{}',
    };
    await callSignalFetch(inner)('http://127.0.0.1:9/v1/x', init as RequestInit);
    expect(reads).toBe(0);
    expect(got).toEqual({ signal: call.signal, method: 'POST', headers: { 'x-a': '1' }, body: '{}' });
  });
});

describe('buildHeaders patched: the same merge as the generator it replaces', () => {
  /** The installed SDK's internal/headers.mjs, and the same file patched, loaded side by side (both use the global Headers). */
  async function both(name: string): Promise<[(h: unknown[]) => unknown, (h: unknown[]) => unknown]> {
    const file = resolve('node_modules', name, 'internal', 'headers.mjs');
    const dir = mkdtempSync(join(tmpdir(), 'sdk-headers-'));
    const values = pathToFileURL(join(dirname(file), 'utils', 'values.mjs')).href;
    const patched = (fastRequest(readFileSync(file, 'utf8'), file) as string).replace('"./utils/values.mjs"', JSON.stringify(values));
    expect(patched).toContain('eachHeader(headers, (name, value) => {');
    writeFileSync(join(dir, 'headers.mjs'), patched);
    type M = { buildHeaders: (h: unknown[]) => unknown };
    const a = (await import(pathToFileURL(file).href)) as M;
    const b = (await import(pathToFileURL(join(dir, 'headers.mjs')).href)) as M;
    return [a.buildHeaders, b.buildHeaders];
  }
  const shown = (r: unknown): unknown => {
    if (typeof r === 'string') return r;
    const { values, nulls } = r as { values: Headers; nulls: Set<string> };
    return { values: [...values.entries()], nulls: [...nulls] };
  };
  const run = (f: (h: unknown[]) => unknown, h: unknown[]): unknown => {
    try {
      return shown(f(h));
    } catch (e) {
      return `${(e as Error).name}: ${(e as Error).message}`;
    }
  };

  for (const [name] of SDKS) {
    it(`${name}: every source shape, case, null, undefined, repeat and error gives the same result`, async () => {
      const [stock, fast] = await both(name);
      const h = new Headers([['x-a', '1'], ['X-B', '2']]);
      const cases: unknown[][] = [
        [],
        [undefined, null, {}],
        [{ 'X-A': '1', 'x-a': '2' }, { 'x-a': ['3', '4'] }],
        [{ a: '1', b: '2' }, { A: null }, { b: undefined, c: [undefined, '5'] }],
        [h, [['x-a', '9'], ['x-a', '10']], { 'x-b': null }],
        [[['x-c', '1']], h, { 'x-stainless-helper': 'h1' }, { 'x-stainless-helper': 'h2, h1' }, { 'X-Stainless-Helper': null }],
        [{ 'x-stainless-helper': 'h1' }, [['x-stainless-helper', 'h3']], h],
        [[[1, 'x']]],
        [{ 'bad name': 'x' }],
        [{ ok: 'a\nb' }],
      ];
      for (const c of cases) {
        const built = run(stock, c);
        expect(run(fast, c), JSON.stringify(c)).toEqual(built);
        // a merge result is itself a source of the next merge (nulls included)
        if (typeof built !== 'string') expect(run(fast, [fast(c), { z: '1' }])).toEqual(run(stock, [stock(c), { z: '1' }]));
      }
    });
  }

  it('the patch fails loudly when the SDK text it edits changed', () => {
    const file = resolve('node_modules/openai/internal/headers.mjs');
    const text = readFileSync(file, 'utf8');
    expect(() => fastRequest(text.replace('targetHeaders.append(name, value);', 'targetHeaders.set(name, value);'), file)).toThrow(/changed/);
    expect(() => fastRequest('export const x = 1;', file)).toThrow(/found no/);
    expect(() => fastRequest('export const x = 1;', '/n/node_modules/@anthropic-ai/sdk/client.mjs')).toThrow(/signal: controller.signal/);
    expect(fastRequest('export const x = 1;', '/n/node_modules/zod/index.mjs')).toBeNull();
  });
});
