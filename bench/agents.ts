// Suite `agents`: harness overhead per step and a 20-step single-agent run, real workers + store,
// against the zero-latency fake provider; baseline = a raw fetch loop doing the same reads.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { figure, repeat, stats, type Figure, type Suite } from './lib.js';
import { resumeLatencyFigure } from './agents-resume.js';
import { Runtime } from '../src/runtime/runtime.js';
import { loadConfig } from '../src/runtime/config/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../src/store/client.js';
import { FakeProvider } from '../src/actors/llm/fake/server.js';
import type { FakeReply } from '../src/actors/llm/fake/script.js';
import { AGENT_MODULE } from '../src/actors/agents/agent-actor.js';
import { settingsFrom } from '../src/actors/agents/run-task.js';
import type { AgentRunInput, AgentRunOutput } from '../src/actors/agents/run-types.js';

const STEPS = 20;
const RUNS = 5;

function script(fake: FakeProvider, agent: string, arrivals: number[]): void {
  const read = (i: number): FakeReply => ({ toolCalls: [{ id: `r${i}`, name: 'read_file', arguments: JSON.stringify({ path: `f${i % 4}.txt` }) }] });
  for (let i = 0; i < STEPS; i++) fake.script(agent, () => (arrivals.push(performance.now()), read(i)));
  fake.script(agent, () => (arrivals.push(performance.now()), { toolCalls: [{ id: 'x', name: 'agent_exit', arguments: '{"conclusion":"done","status":"ok"}' }] }));
}

const gaps = (a: number[]): number[] => a.slice(1).map((t, i) => t - (a[i] as number));

/** The floor: a bare fetch loop that reads the file and sends the next request. */
async function rawLoop(fake: FakeProvider, ws: string, arrivals: number[]): Promise<number> {
  const t0 = performance.now();
  const messages: unknown[] = [{ role: 'user', content: 'go' }];
  for (;;) {
    const res = await fetch(`${fake.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-yagent-agent': 'raw', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'fake-model', messages, stream: false }),
    });
    const body = (await res.json()) as { choices: { message: { tool_calls?: { id: string; function: { name: string; arguments: string } }[] } }[] };
    const tc = body.choices[0]?.message.tool_calls?.[0];
    if (!tc || tc.function.name === 'agent_exit') break;
    const args = JSON.parse(tc.function.arguments) as { path: string };
    const content = await readFile(join(ws, args.path), 'utf8');
    messages.push({ role: 'assistant', content: '', tool_calls: [{ id: tc.id, type: 'function', function: tc.function }] }, { role: 'tool', tool_call_id: tc.id, content });
  }
  void arrivals;
  return performance.now() - t0;
}

const suite: Suite = {
  name: 'agents',
  async run(): Promise<Figure[]> {
    const root = mkdtempSync(join(tmpdir(), 'yagent-bench-agents-'));
    const ws = join(root, 'ws');
    mkdirSync(ws, { recursive: true });
    for (let i = 0; i < 4; i++) writeFileSync(join(ws, `f${i}.txt`), `file ${i}\n`.repeat(20));
    process.env.YAGENT_HOME = join(root, 'home');
    const fake = await FakeProvider.start({ chunkDelayMs: 0 });
    const configPath = join(root, 'config.toml');
    writeFileSync(configPath, `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\nmodel = "fake-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n`);
    const { config } = await loadConfig({ configPath });
    const rt = await Runtime.start({ hasResponder: false });
    // warm spares first: the gap per step is measured against a booted worker, not a cold boot
    await rt.warm();
    try {
      await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: join(root, 'home'), notesRoot: join(root, 'home', 'notes') } });
      const ourGaps: number[] = [];
      let k = 0;
      const ourTotals = await repeat(RUNS, async () => {
        const arrivals: number[] = [];
        script(fake, 'repo', arrivals);
        const taskId = `bench-${k++}`;
        const task = await rt.startTask(taskId);
        const input: AgentRunInput = { agent: 'repo', role: 'repo', brief: 'read the files', settings: { ...settingsFrom({ prompt: '', workspace: ws, config, configPath }, taskId, taskId), maxStepsOverride: { repo: STEPS + 5 }, indexMaxNotes: Number(process.env.BENCH_INDEX ?? 12) }, delegationId: null, parentSessionId: null };
        const t0 = performance.now();
        const out = await task.spawn<AgentRunInput, AgentRunOutput>({ name: 'repo', module: AGENT_MODULE, input, delegationId: null });
        const total = performance.now() - t0;
        if (out.stopReason !== 'agent_exit') throw new Error(`bench run stopped with ${out.stopReason}: ${out.error ?? ''}`);
        ourGaps.push(...gaps(arrivals));
        await rt.endTask(taskId);
        return total;
      });
      const rawGaps: number[] = [];
      const rawTotals = await repeat(RUNS, async () => {
        const arrivals: number[] = [];
        script(fake, 'raw', arrivals);
        const t = await rawLoop(fake, ws, arrivals);
        rawGaps.push(...gaps(arrivals));
        return t;
      });
      const resume = await resumeLatencyFigure(rt, fake, { workspace: ws, config, configPath });
      const gapBase = stats(rawGaps).median;
      const totalBase = stats(rawTotals).median;
      return [
        figure('harness_gap_per_step_p50', 'ms', ourGaps, '< 14 ms (best peer, gemini-cli)', (v) => v < 14, { label: 'raw fetch loop: response → read → next request, same fake server', value: gapBase }),
        figure('single_agent_20_steps_total', 'ms', ourTotals, '< 2000 ms (gemini-cli 2.0 s)', (v) => v < 2000, { label: 'raw fetch loop, 20 reads', value: totalBase }),
        resume,
      ];
    } finally {
      await rt.shutdown();
      await fake.close();
    }
  },
};

export default suite;
