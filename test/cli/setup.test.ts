// `yagent setup` as a subprocess: works on a broken config, keeps comments, offers local servers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { LOCAL_SERVERS, probeLocal } from '../../bin/cli/probe.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { runSetup } from '../../bin/cli/setup.js';
import { runCli, sandbox, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
let server: Server | undefined;
afterEach(async () => {
  sb?.cleanup();
  if (server) await new Promise<void>((r) => server?.close(() => r()));
  server = undefined;
});

async function fakeLocalServer(models: string[] = ['qwen2.5-coder'], status = 200): Promise<number> {
  server = createServer((req, res) => {
    if (status !== 200) res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"message":"Invalid API Key","type":"authentication_error"}}');
    else if (req.url === '/v1/models') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

describe('yagent setup', () => {
  it('setup works on a broken config and keeps its comments (non-interactive flags)', async () => {
    sb = sandbox('# my precious comment\n[global.llm]\nuse_provider = "nope"   # points nowhere\n');
    const cfg = join(sb.home, 'config', 'config.toml');
    const before = await runCli(['-p', 'hi'], sb.env);
    expect(before.code).toBe(2);
    expect(before.stderr).toMatch(/config error/);
    const r = await runCli(['setup', '--no-probe', '--provider', 'mine', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm1', '--api-key-env', 'MY_KEY'], { ...sb.env, MY_KEY: 'secret' });
    expect(r.stderr).toMatch(/provider "mine"/);
    expect(r.code).toBe(0);
    const text = readFileSync(cfg, 'utf8');
    expect(text).toContain('# my precious comment');
    expect(text).toContain('use_provider = "mine"   # points nowhere');
    expect(text).toContain('api_key_env = "MY_KEY"');
    expect(statSync(cfg).mode & 0o777).toBe(0o600);
  });

  it('first run with no usable provider points at setup with exit code 2', async () => {
    sb = sandbox();
    const r = await runCli(['-p', 'hi'], sb.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/yagent setup/);
  });

  it('setup offers a local OpenAI-compatible server found on loopback and writes it', async () => {
    const port = await fakeLocalServer();
    // a server that answers is found as soon as it does: the timeout only bounds a silent port (generous under load)
    expect(await probeLocal([{ name: 'ollama', port }], 20_000)).toEqual([{ name: 'ollama', baseUrl: `http://127.0.0.1:${port}/v1`, models: ['qwen2.5-coder'] }]);
    sb = sandbox();
    const r = await runCli(['setup', '--provider', 'ollama'], { ...sb.env, YAGENT_SETUP_PROBE: `ollama=${port}` });
    expect(r.stderr).toMatch(/found local servers:\n  ollama at http:\/\/127\.0\.0\.1:\d+\/v1 \(models: qwen2\.5-coder\)/);
    expect(r.code).toBe(0);
    const text = readFileSync(join(sb.home, 'config', 'config.toml'), 'utf8');
    expect(text).toMatch(/\[global\.llm\.providers\.ollama\][\s\S]*model = "qwen2\.5-coder"/);
    expect(text).toMatch(/use_provider = "ollama"/);
  });

  it('a probe ignores ports where nothing answers like an OpenAI server', async () => {
    server = createServer((_req, res) => res.writeHead(200).end('hello'));
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    expect(await probeLocal([{ name: 'x', port }, { name: 'closed', port: 9 }], 300)).toEqual([]);
  });

  for (const [key, send] of [['Ctrl-C', (s: PassThrough) => s.write('\x03')], ['Ctrl-D', (s: PassThrough) => s.end()]] as const) {
    it(`${key} at an interactive setup question exits 130 and writes nothing`, async () => {
      sb = sandbox('# untouched\n');
      const cfg = join(sb.home, 'config', 'config.toml');
      const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
      let err = '';
      const io = { stdout: () => undefined, stderr: (t: string) => void (err += t) };
      const flags = { provider: undefined, baseUrl: undefined, model: undefined, apiKeyEnv: undefined, format: undefined, probe: false };
      const output = new PassThrough();
      let shown = '';
      const asked = new Promise<void>((resolve) =>
        output.on('data', (d: Buffer) => {
          shown += d.toString();
          if (shown.includes('provider name')) resolve();
        }),
      );
      const code = runSetup(cfg, flags, io, true, { input, output });
      input.write('1\n'); // "another endpoint" (nothing probed): the key arrives while the next question is pending
      await asked;
      send(input);
      expect(await code).toBe(130);
      expect(err).toMatch(/cancelled/);
      expect(readFileSync(cfg, 'utf8')).toBe('# untouched\n');
    });
  }

  /** Answers each interactive question as it appears (an answer typed early would be lost), returns what was shown. */
  async function interactiveSetup(answers: [string, string][]): Promise<{ code: number; shown: string; config: string; mode: number }> {
    sb = sandbox('# kept\n');
    const cfg = join(sb.home, 'config', 'config.toml');
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    const output = new PassThrough();
    let shown = '';
    const pending = [...answers];
    output.on('data', (d: Buffer) => {
      shown += d.toString().replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''); // readline's cursor moves, not text
      const next = pending[0];
      if (next !== undefined && shown.endsWith(next[0])) {
        pending.shift();
        setImmediate(() => input.write(`${next[1]}\r`)); // typed after the prompt is shown, as a person would
      }
    });
    const flags = { provider: undefined, baseUrl: undefined, model: undefined, apiKeyEnv: undefined, format: undefined, probe: false };
    const code = await runSetup(cfg, flags, { stdout: () => undefined, stderr: () => undefined }, true, { input, output });
    return { code, shown, config: readFileSync(cfg, 'utf8'), mode: statSync(cfg).mode & 0o777 };
  }
  const endpoint = (key: string): [string, string][] => [
    ['choose: ', '1'],
    ['provider name (e.g. openai): ', 'acme'],
    ['api format [openai|anthropic] (openai): ', ''],
    ['api base url: ', 'https://llm.acme.test/v1'],
    ['model: ', 'acme-coder'],
    ['(e.g. OPENAI_API_KEY; input hidden): ', key],
  ];

  it('the key question takes the key itself: written to the 0600 config, never echoed', async () => {
    const r = await interactiveSetup(endpoint('sk-acme-0123456789'));
    expect(r.code).toBe(0);
    expect(r.config).toContain('api_key = "sk-acme-0123456789"');
    expect(r.config).not.toContain('api_key_env');
    expect(r.config).toContain('# kept');
    expect(r.mode).toBe(0o600);
    expect(r.shown).toContain('model: acme-coder'); // ordinary answers are echoed…
    expect(r.shown).not.toContain('sk-acme'); // …the key is not
  });

  it('the key question takes the name of a variable instead: written as api_key_env', async () => {
    vi.stubEnv('ACME_API_KEY', 'sk-from-env'); // set, so the written config loads
    const r = await interactiveSetup(endpoint('ACME_API_KEY'));
    vi.unstubAllEnvs();
    expect(r.code).toBe(0);
    expect(r.config).toContain('api_key_env = "ACME_API_KEY"');
    expect(r.config).not.toMatch(/^api_key = /m);
  });
});

describe('yagent setup for local servers (issue 23 item 8)', () => {
  it('a loopback server needs no key: setup writes no api_key, and a run then talks to the server', async () => {
    const fake = await FakeProvider.start();
    try {
      fake.script('director', { text: 'hello from the local model', finishReason: 'stop' });
      sb = sandbox();
      const r = await runCli(['setup', '--no-probe', '--provider', 'local', '--base-url', fake.openaiBaseUrl, '--model', 'm'], sb.env);
      expect(r.stderr).toMatch(/provider "local"/);
      expect(r.code).toBe(0);
      const text = readFileSync(join(sb.home, 'config', 'config.toml'), 'utf8');
      expect(text).toMatch(/\[global\.llm\.providers\.local\][\s\S]*model = "m"/);
      const block = text.slice(text.search(/^\[global\.llm\.providers\.local\]$/m)).split(/^\[/m)[1] ?? '';
      expect(block).toMatch(/model = "m"/);
      expect(block).not.toMatch(/api_key/);
      const run = await runCli(['-d', 'all', '-p', 'hi'], sb.env);
      expect(run.stdout.trim()).toBe('hello from the local model');
      expect(run.code).toBe(0);
    } finally {
      await fake.close();
    }
  });

  it('setup never writes a config it would reject: a cloud endpoint without a key is exit 2 and the file is unchanged', async () => {
    sb = sandbox('# untouched\n');
    const cfg = join(sb.home, 'config', 'config.toml');
    const r = await runCli(['setup', '--no-probe', '--provider', 'acme', '--base-url', 'https://llm.acme.test/v1', '--model', 'm'], sb.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/provider "acme" has no api_key/);
    expect(r.stderr).toMatch(/was not written/);
    expect(readFileSync(cfg, 'utf8')).toBe('# untouched\n');
  });

  it('detection probes the usual ports of llama.cpp, Ollama, LM Studio and vLLM', () => {
    expect(Object.fromEntries(LOCAL_SERVERS.map((c) => [c.name, c.port]))).toEqual({ llamacpp: 8080, ollama: 11434, lmstudio: 1234, vllm: 8000 });
  });

  it('a server that answers 401 is named as wanting a key; choosing it without one writes nothing', async () => {
    const port = await fakeLocalServer([], 401);
    sb = sandbox('# untouched\n');
    const r = await runCli(['setup', '--provider', 'vllm'], { ...sb.env, YAGENT_SETUP_PROBE: `vllm=${port}` });
    expect(r.stderr).toMatch(/vllm at http:\/\/127\.0\.0\.1:\d+\/v1 answered 401: it wants an API key/);
    expect(r.code).toBe(1);
    expect(readFileSync(join(sb.home, 'config', 'config.toml'), 'utf8')).toBe('# untouched\n');
  });

  it('the models the server lists are offered: the first is taken without --model and the others are named', async () => {
    const port = await fakeLocalServer(['qwen3-coder', 'llama3.2', 'gemma3']);
    sb = sandbox();
    const r = await runCli(['setup', '--provider', 'llamacpp'], { ...sb.env, YAGENT_SETUP_PROBE: `llamacpp=${port}` });
    expect(r.stderr).toMatch(/models: qwen3-coder, llama3\.2, gemma3/);
    expect(r.stderr).toMatch(/model: qwen3-coder \(the server also lists: llama3\.2, gemma3; choose with --model\)/);
    expect(r.code).toBe(0);
    expect(readFileSync(join(sb.home, 'config', 'config.toml'), 'utf8')).toMatch(/model = "qwen3-coder"/);
    // a model the server does not list is said at once
    const other = await runCli(['setup', '--provider', 'llamacpp', '--model', 'qwen-typo'], { ...sb.env, YAGENT_SETUP_PROBE: `llamacpp=${port}` });
    expect(other.stderr).toMatch(/the server does not list model "qwen-typo"/);
  });
});

/** A server started with `--api-key` (llama-server): every path but /health answers 401 without that bearer key. */
async function keyedServer(key: string, models: string[]): Promise<number> {
  server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${key}`) res.writeHead(401, { 'content-type': 'application/json; charset=utf-8', connection: 'close' }).end('{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}');
    else if (req.url === '/v1/models') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

describe('yagent setup --api-key-env on a server started with a key (seen with llama-server --api-key)', () => {
  const flags = (port: number): string[] => ['setup', '--provider', 'keyed', '--base-url', `http://127.0.0.1:${port}/v1`, '--api-key-env', 'LLAMA_KEY'];
  it('the server is asked with the key: its first model is taken', async () => {
    const port = await keyedServer('k', ['/models/wire-probe.gguf']);
    sb = sandbox();
    const r = await runCli(flags(port), { ...sb.env, YAGENT_SETUP_PROBE: 'none=9', LLAMA_KEY: 'k' });
    expect(r.stderr).toContain('provider "keyed" (/models/wire-probe.gguf at');
    expect(r.code).toBe(0);
  });

  it('a key the server refuses is said, and nothing is written', async () => {
    const port = await keyedServer('k', ['m']);
    sb = sandbox('# untouched\n');
    const r = await runCli([...flags(port), '--model', 'm'], { ...sb.env, YAGENT_SETUP_PROBE: 'none=9', LLAMA_KEY: 'wrong' });
    expect(r.stderr).toContain('refused the key in LLAMA_KEY (401)');
    expect(r.code).toBe(1);
    expect(readFileSync(join(sb.home, 'config', 'config.toml'), 'utf8')).toBe('# untouched\n');
  });

  it('no --model and the variable unset: says why no model could be taken (not "setup needs a provider")', async () => {
    const port = await keyedServer('k', ['m']);
    sb = sandbox();
    const r = await runCli(flags(port), { ...sb.env, YAGENT_SETUP_PROBE: 'none=9' });
    expect(r.stderr).toContain('lists its models only with its key, and LLAMA_KEY is not set');
    expect(r.stderr).toContain('add --model MODEL');
    expect(r.code).toBe(1);
  });
});
