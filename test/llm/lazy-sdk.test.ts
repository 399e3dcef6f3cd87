// The SDKs load on an engine's first call, not with the llm area: a fresh node process records every ESM load.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const INDEX = resolve('dist/src/actors/llm/index.js');
const CONFIG = resolve('dist/src/runtime/config/index.js');

// the load hook runs off the main thread: it appends each module URL to a file, synchronously, before the module evaluates
const HOOK = `import { appendFileSync } from 'node:fs';
let log = '';
export function initialize(data) { log = data.log; }
export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }`;

const CHILD = `
import { register } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
const log = process.env.LOAD_LOG;
writeFileSync(log, '');
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), { data: { log } });
const snapshot = () => readFileSync(log, 'utf8').split('\\n').filter((l) => l !== '');
const { buildAgentEngine } = await import(${JSON.stringify(pathToFileURL(INDEX).href)});
const { parseConfigText } = await import(${JSON.stringify(pathToFileURL(CONFIG).href)});
const prov = (n, fmt) => '[global.llm.providers.' + n + ']\\nmodel = "m"\\napi_base_url = "http://127.0.0.1:9"\\napi_key = "k"\\napi_format = "' + fmt + '"\\n';
const cfg = parseConfigText('[global.llm]\\nuse_provider = "oa"\\n' + prov('oa', 'openai') + prov('an', 'anthropic') + '[llm]\\nmax_retries = 0\\nfallback_max_retries = 0\\n', 'c.toml', {});
cfg.routing.mode = 'fixed';
cfg.providers['oa'].fallbackProviders.push({ provider: 'an', weight: 1 });
const offline = async () => { throw new TypeError('fetch failed'); };
const engine = buildAgentEngine(cfg, 'director', { publish: () => undefined, fetch: offline, sleep: async () => undefined });
const built = snapshot();
// the openai primary fails to connect, the anthropic fallback is tried: both engines make their first call
const error = await engine.call({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal, agent: 'director' })
  .then(() => 'no error', (e) => e.code);
process.stdout.write(JSON.stringify({ built, called: snapshot(), error }));
`;

interface Loads {
  built: string[];
  called: string[];
  error: string;
}

const sdkOf = (urls: string[], pkg: string): string[] => urls.filter((u) => u.includes(`/node_modules/${pkg}/`));

let dir: string;
let loads: Loads;
beforeAll(async () => {
  expect(existsSync(INDEX), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'yagent-lazy-sdk-'));
  const out = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: { ...process.env, LOAD_LOG: join(dir, 'loads.txt'), HOME: dir, YAGENT_HOME: dir },
    timeout: 30_000,
  });
  loads = JSON.parse(out.stdout) as Loads;
  expect(readFileSync(join(dir, 'loads.txt'), 'utf8')).not.toBe('');
}, 40_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('lazy SDK loading', () => {
  it('importing the llm area and building an agent engine loads no SDK module', () => {
    // the hook saw the engine modules themselves, so an SDK load would have been recorded too
    expect(loads.built.some((u) => u.endsWith('/dist/src/actors/llm/engines/openai.js'))).toBe(true);
    expect(loads.built.some((u) => u.endsWith('/dist/src/actors/llm/engines/anthropic.js'))).toBe(true);
    expect(sdkOf(loads.built, 'openai')).toEqual([]);
    expect(sdkOf(loads.built, '@anthropic-ai/sdk')).toEqual([]);
  });

  it('the first call loads the SDK of each engine that makes it', () => {
    expect(loads.error).toBe('CONNECTION');
    expect(sdkOf(loads.called, 'openai').length).toBeGreaterThan(0);
    expect(sdkOf(loads.called, '@anthropic-ai/sdk').length).toBeGreaterThan(0);
  });
});
