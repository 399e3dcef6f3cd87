// A 60-step `yagent -p` run against the fake speaking as llama-server with an 8k window (-c 8192: it says so in
// /props, so the run's compression threshold is 6144): how many summary calls (tier 2, one model call each) the run
// makes. Issue 23 item 9: at an 8k threshold tier 2 used to fire every ~3 steps; the target is one per ~15 steps.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeProvider } from '../src/actors/llm/fake/server.js';
import { setKeyInSection } from '../src/runtime/config/persist.js';
import { CONFIG_TEMPLATE } from '../src/runtime/config/template.js';
import { ROOT } from './side-by-side.js';

export const SMALL_WINDOW = 8192;
export const SMALL_WINDOW_STEPS = 60;
const FILES = 10;

export interface SmallWindowRun {
  steps: number;
  summaries: number;
  /** Context events of each tier the run published (stderr is not parsed: the fake counts the summary calls). */
  ms: number;
}

/** One run in `dir`: production template pointed at the fake, the Director alone (-d all) reading 60 times. */
export async function smallWindowRun(dir: string): Promise<SmallWindowRun> {
  const fake = await FakeProvider.start({ flavour: 'llama.cpp', window: SMALL_WINDOW, model: 'local-model' });
  try {
    const ws = join(dir, 'ws');
    const home = join(dir, 'home');
    mkdirSync(ws, { recursive: true });
    mkdirSync(join(home, 'config'), { recursive: true });
    // source-like files of ~2.5 KB, each different
    for (let f = 0; f < FILES; f++) writeFileSync(join(ws, `m${f}.ts`), Array.from({ length: 40 }, (_, l) => `export const v${f}_${l} = compute(${f}, ${l}); // line ${l}`).join('\n'));
    const section = 'global.llm.providers.local';
    let t = setKeyInSection(CONFIG_TEMPLATE, section, 'api_format', 'openai');
    t = setKeyInSection(t, section, 'api_base_url', fake.openaiBaseUrl);
    t = setKeyInSection(t, section, 'model', 'local-model');
    t = setKeyInSection(t, 'global.llm', 'use_provider', 'local');
    t = setKeyInSection(t, 'routing', 'mode', 'fixed');
    const config = join(home, 'config', 'config.toml');
    writeFileSync(config, t, { mode: 0o600 });
    for (let i = 0; i < SMALL_WINDOW_STEPS; i++) {
      const thought = `<thought>\ngoal: read the module\nstep: read m${i % FILES}.ts\nreason: bench\n</thought>`;
      fake.script('director', { text: thought, toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: `m${i % FILES}.ts` }) }], finishReason: 'tool_calls' });
    }
    fake.script('director', { text: 'done: read every module.', finishReason: 'stop' });
    for (let i = 0; i < SMALL_WINDOW_STEPS; i++) fake.script('compression', { text: `summary ${i}: the modules m0.ts to m9.ts each export forty values computed from their index; nothing else found.`, finishReason: 'stop' });
    const t0 = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'yagent.js'), '-c', config, '-d', 'all', '-p', 'read every module', '-y'], { env: { PATH: process.env.PATH, HOME: dir, YAGENT_HOME: home }, cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    if (code !== 0) throw new Error(`yagent exited ${code}: ${err.slice(-2000)}`);
    const steps = fake.requestsFor('director').length;
    if (steps !== SMALL_WINDOW_STEPS + 1) throw new Error(`the run made ${steps} model requests, want ${SMALL_WINDOW_STEPS + 1}`);
    return { steps: SMALL_WINDOW_STEPS, summaries: fake.requestsFor('compression').length, ms: performance.now() - t0 };
  } finally {
    await fake.close();
  }
}
