// The vendored SDKs build no log text their log level would not print (scripts/sdk-quiet-logs.mjs, issue 29), and
// print the same as the installed SDK when the level asks for it. Run after `npm run build` (dist/node_modules).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error a build script, plain JS
import { quietLogs } from '../../scripts/sdk-quiet-logs.mjs';

type Client = { chat?: unknown; messages?: unknown };
type Sdk = { default: new (opts: Record<string, unknown>) => Client };

const vendored = (name: string): Promise<Sdk> => import(pathToFileURL(resolve('dist/node_modules', name, 'index.js')).href) as Promise<Sdk>;
const installed = (name: string): Promise<Sdk> => import(name) as Promise<Sdk>;

/** An answer whose `headers` reads are counted (the SDK's own path never needs them once the body is ours). */
function answer(reads: { headers: number }, name: string) {
  const headers: Record<string, string> = { [name]: 'r1', 'content-type': 'application/json' };
  Object.defineProperty(headers, 'entries', { value: () => Object.entries(headers)[Symbol.iterator](), enumerable: false });
  return {
    ok: true,
    status: 200,
    url: 'http://127.0.0.1:9/v1/x',
    body: null,
    get headers() {
      reads.headers += 1;
      return headers;
    },
  };
}

type Log = [string, ...unknown[]][];
function logger(log: Log) {
  const at = (level: string) => (...args: unknown[]) => log.push([level, ...args]);
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** One call through the SDK's request path, the answer taken raw (as the engines do); returns its counted reads. */
async function call(sdk: Sdk, kind: 'openai' | 'anthropic', logLevel: string, log: Log) {
  const reads = { headers: 0, details: 0 };
  const fetch = () => Promise.resolve(answer(reads, kind === 'openai' ? 'x-request-id' : 'request-id'));
  const client = new sdk.default({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch, logLevel, logger: logger(log) });
  // formatRequestDetails copies the headers into an object with Object.fromEntries (once more elsewhere on this path)
  const fromEntries = Object.fromEntries.bind(Object);
  const spy = vi.spyOn(Object, 'fromEntries').mockImplementation((entries) => {
    reads.details += 1;
    return fromEntries(entries);
  });
  const body = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }], stream: true };
  const api = kind === 'openai' ? (client.chat as { completions: { create: (b: unknown, o: unknown) => { asResponse(): Promise<unknown> } } }).completions : (client.messages as { create: (b: unknown, o: unknown) => { asResponse(): Promise<unknown> } });
  try {
    await api.create(body, {}).asResponse();
  } finally {
    spy.mockRestore();
  }
  return reads;
}

/** The log with what differs per run (the random log id, the durations) made equal. */
const normal = (log: Log) => JSON.stringify(log).replace(/log_[0-9a-f]{6}/g, 'log_ID').replace(/in \d+ms/g, 'in Nms').replace(/"durationMs":\d+/g, '"durationMs":N');

describe('the vendored SDKs build log text only when their log level prints it', () => {
  afterEach(() => vi.restoreAllMocks());

  for (const [name, kind] of [['openai', 'openai'], ['@anthropic-ai/sdk', 'anthropic']] as const) {
    it(`${name}: with logging at its default level a call builds no log line's text or details`, async () => {
      const log: Log = [];
      const patched = await call(await vendored(name), kind, 'warn', log);
      const stock = await call(await installed(name), kind, 'warn', log);
      expect(log).toEqual([]);
      // stock: `responseInfo` iterates the answer's headers; OpenAI also formats the details of the request and the
      // answer (2 copies of headers); Anthropic's debug call still names `response.headers` in its (unformatted) details
      const [headers, details] = kind === 'openai' ? [2, 2] : [1, 0];
      expect({ headers: stock.headers - patched.headers, details: stock.details - patched.details }).toEqual({ headers, details });
      expect(patched.headers).toBe(kind === 'openai' ? 0 : 1);
    });

    it(`${name}: with info and debug logging on, the log lines are the installed SDK's`, async () => {
      for (const level of ['info', 'debug']) {
        const patchedLog: Log = [];
        const stockLog: Log = [];
        await call(await vendored(name), kind, level, patchedLog);
        await call(await installed(name), kind, level, stockLog);
        expect(patchedLog.length).toBeGreaterThan(0);
        expect(normal(patchedLog)).toBe(normal(stockLog));
      }
    });
  }

  it('the patch fails loudly when the SDK text it edits is not there', () => {
    expect(() => quietLogs('export const x = 1;', '/n/node_modules/openai/client.mjs')).toThrow(/SDK log patch expected/);
    expect(() => quietLogs('export const x = 1;', '/n/node_modules/@anthropic-ai/sdk/client.mjs')).toThrow(/SDK log patch expected/);
    expect(quietLogs('export const x = 1;', '/n/node_modules/zod/index.mjs')).toBeNull();
  });
});
