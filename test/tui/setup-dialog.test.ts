// /setup in a running TUI (painted into @xterm/headless): refused while a task runs; the probed local server is
// offered, the provider is written through the write-back (comments kept), and the next turn runs on the new backend.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TuiApp, type TuiOptions } from '../../bin/tui/app.js';
import type { TuiBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS } from '../../bin/tui/keys.js';
import type { TaskOutcome } from '../../bin/host/types.js';
import { makeTerm } from './harness.js';

const apps: TuiApp[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function backend(name: string, starts: string[]): TuiBackend & { end(): void } {
  let end: (o: TaskOutcome | null) => void = () => undefined;
  const none = (): Promise<void> => Promise.resolve();
  return {
    where: 'local',
    start: (prompt) => (starts.push(`${name}: ${prompt}`), Promise.resolve({ taskId: `t-${name}`, done: new Promise<TaskOutcome | null>((r) => (end = r)) })),
    end: () => end(null),
    cancel: none, pause: none, resume: none, respond: none,
    pauseActor: () => Promise.resolve([]),
    subscribe: () => () => undefined,
    tree: () => Promise.resolve(null),
    timeline: () => Promise.resolve([]),
  };
}

/** A TUI on `old` whose /setup writes `config` (a fresh file); `step` types keys and waits until they are painted. */
function setupApp(config: string, old: TuiBackend, setup: Omit<NonNullable<TuiOptions['setup']>, 'configPath'>): { cfg: string; app: TuiApp; step: (keys: string) => Promise<string> } {
  const dir = mkdtempSync(join(tmpdir(), 'yagent-tui-setup-'));
  dirs.push(dir);
  const cfg = join(dir, 'config.toml');
  writeFileSync(cfg, config);
  const term = makeTerm(100, 30);
  const app = new TuiApp({ backend: old, bindings: DEFAULT_BINDINGS, io: term.io, setup: { configPath: cfg, ...setup } });
  apps.push(app);
  const step = async (keys: string): Promise<string> => {
    term.type(keys);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 5; j++) await new Promise((r) => setImmediate(r));
      app.frames.flush();
      await term.settle();
    }
    return term.screenText();
  };
  return { cfg, app, step };
}

describe('/setup in the TUI', () => {
  it('is refused while a task runs; then offers the probed server, writes it keeping comments, and the next turn uses the new config', async () => {
    const starts: string[] = [];
    const old = backend('old', starts);
    let reconfigured = 0;
    let switched: () => void = () => undefined;
    const reconfiguring = new Promise<void>((r) => (switched = r));
    const fresh = backend('new', starts);
    const { cfg, step } = setupApp('# my comment\n[global.llm]\nuse_provider = "p"\n\n[global.llm.providers.p]\napi_format = "openai"\napi_base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key = "k"\n', old, {
      probe: () => Promise.resolve([{ name: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: ['llama3', 'qwen2.5-coder'] }]),
      reconfigure: () => (reconfigured++, switched(), Promise.resolve(fresh)),
    });
    await step('first\r');
    expect(await step('/setup\r')).toContain('/setup is refused while a task runs');
    old.end();
    await step(''); // the turn's end settles
    let screen = await step('/setup\r');
    expect(screen).toContain('─ setup ─');
    expect(screen).toContain('1) ollama at http://127.0.0.1:11434/v1 (llama3, qwen2.5-coder)');
    expect(screen).toContain(' model ? '); // nothing called yet
    expect(await step('7\r')).toContain('"7" is not one of 1-2');
    // the models the server listed are offered: a number picks one
    screen = await step('1\r');
    expect(screen).toContain('│ 1) llama3 ');
    expect(screen).toContain('│ 2) qwen2.5-coder ');
    expect(screen).toContain('model: a number or a name [llama3]:');
    expect(await step('3\r')).toContain('"3" is not one of 1-2');
    screen = await step('2\r');
    await reconfiguring; // the write-back does real I/O, then hands over
    screen = await step('');
    expect(screen).not.toContain('─ setup ─');
    expect(screen).toMatch(/provider "ollama" \(qwen2\.5-coder at http:\/\/127\.0\.0\.1:11434\/v1\)\s+(Notes\s+)?written/);
    // the status line names the configured model, not `model ?`
    expect(screen.split('\n').at(-1)).toContain(' ollama/qwen2.5-coder ');
    expect(screen).not.toContain('model ?');
    const text = readFileSync(cfg, 'utf8');
    expect(text).toContain('# my comment');
    expect(text).toMatch(/use_provider = "ollama"/);
    expect(reconfigured).toBe(1);
    await step('second\r');
    expect(starts).toEqual(['old: first', 'new: second']);
    fresh.end();
  });

  it('the key question takes a set environment variable or the key itself (typed as dots, kept out of the history); an unset variable is asked again', async () => {
    const fresh = backend('new', []);
    let switched: () => void = () => undefined;
    const reconfiguring = new Promise<void>((r) => (switched = r));
    const { cfg, app, step } = setupApp('[global.llm]\nuse_provider = "p"\n\n[global.llm.providers.p]\napi_format = "openai"\napi_base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key = "REPLACE_WITH_YOUR_API_KEY"\n', backend('old', []), {
      probe: () => Promise.resolve([]),
      reconfigure: () => (switched(), Promise.resolve(fresh)),
    });
    await step('/setup\r');
    for (const answer of ['mine', '', 'http://127.0.0.1:8/v1', 'm1']) await step(`${answer}\r`);
    expect(await step('YAGENT_TEST_UNSET_KEY\r')).toContain('YAGENT_TEST_UNSET_KEY is not set in this terminal');
    expect(await step('\r')).toContain('an api key is needed');
    const typing = await step('sk-secret-123');
    expect(typing).toContain('> •••••••••••••');
    expect(typing).not.toContain('sk-secret');
    await step('\r');
    await reconfiguring; // written, then handed over: waits for the event, not a number of steps
    await step('');
    expect(readFileSync(cfg, 'utf8')).toMatch(/\[global\.llm\.providers\.mine\][\s\S]*api_key = "sk-secret-123"/);
    expect(await step('\x1b[A')).not.toContain('sk-secret'); // Up: the history holds /setup, never the key
    expect(app.input.text).toBe('/setup');
  });
});
