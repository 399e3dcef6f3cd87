// `yagent setup` as a subprocess: works on a broken config, keeps comments, offers local servers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { probeLocal } from '../../bin/cli/probe.js';
import { runSetup } from '../../bin/cli/setup.js';
import { runCli, sandbox, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
let server: Server | undefined;
afterEach(async () => {
  sb?.cleanup();
  if (server) await new Promise<void>((r) => server?.close(() => r()));
  server = undefined;
});

async function fakeLocalServer(): Promise<number> {
  server = createServer((req, res) => {
    if (req.url === '/v1/models') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'qwen2.5-coder' }] }));
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
    expect(await probeLocal([{ name: 'ollama', port }], 500)).toEqual([{ name: 'ollama', baseUrl: `http://127.0.0.1:${port}/v1`, models: ['qwen2.5-coder'] }]);
    sb = sandbox();
    const r = await runCli(['setup', '--provider', 'ollama'], { ...sb.env, YAGENT_SETUP_PROBE: `ollama=${port}` });
    expect(r.stderr).toMatch(/found local servers: ollama/);
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
});
