// Suite `agents`: harness overhead per agent step — a repo agent actor on real workers, the real store and
// dispatcher, in this process — beside the reference agent loop (bench/reference-agent.mjs, its own process)
// on the same loopback fake model with the same 20-step script; runs alternate A/B.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { figure, pairedFigure, repeat, round, stats, type Figure, type Suite } from './lib.js';
import { prepare, runReference, ScriptedModel, STEPS } from './side-by-side.js';
import { resumeLatencyFigure } from './agents-resume.js';
import { writeAheadFigure } from './agents-write-ahead.js';
import { Runtime } from '../src/runtime/runtime.js';
import { loadConfig } from '../src/runtime/config/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../src/store/client.js';
import { AGENT_MODULE } from '../src/actors/agents/agent-actor.js';
import { settingsFrom } from '../src/actors/agents/run-task.js';
import type { AgentRunInput, AgentRunOutput } from '../src/actors/agents/run-types.js';
import type { ChatMessage } from '../src/runtime/protocol/index.js';
import { ruleCompress } from '../src/actors/agents/compression/tier1-rule.js';
import { recentStart } from '../src/actors/agents/compression/turns.js';
import { tokensOf } from '../src/actors/agents/compression/tokens.js';
import { meterFigures } from './compression-meter.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

/** A 200-message history (system, brief, 99 read turns of 4 KB); fresh objects each time (token counts are cached per object). */
function readHistory(): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'you are a repo agent' }, { role: 'user', content: 'read every file' }];
  for (let i = 0; i < 99; i++) {
    out.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: `{"path":"f${i}.txt"}` }] });
    out.push({ role: 'tool', toolCallId: `c${i}`, name: 'read_file', content: `${i} ${'lorem ipsum dolor sit amet '.repeat(152)}` });
  }
  return out;
}

/** Tier-1 compression of a 200-message history: its cost against a bare slice loop over the same results, and the tokens it saves. */
async function compressionFigures(): Promise<Figure[]> {
  const keepTokens = 200;
  const threshold = 60_000;
  let before = 0;
  let after = 0;
  const ours = await repeat(RUNS * 4, () => {
    const h = readHistory();
    const t0 = performance.now();
    const r = ruleCompress(h, { keepTokens, target: Math.floor(threshold * 0.7), protectFrom: recentStart(h, 3) });
    const ms = performance.now() - t0;
    before = tokensOf(h);
    after = r.tokens;
    return Promise.resolve(ms);
  });
  const raw = await repeat(RUNS * 4, () => {
    const h = readHistory();
    const t0 = performance.now();
    const cut = h.map((m) => (m.role === 'tool' ? { ...m, content: m.content.slice(0, keepTokens * 4) } : m));
    const ms = performance.now() - t0;
    if (cut.length !== h.length) throw new Error('raw cut lost messages');
    return Promise.resolve(ms);
  });
  return [
    figure('compress_tier1_200_messages', 'ms', ours, '< 20 ms (a step must not notice it)', (v) => v < 20, { label: 'bare slice loop over the same 99 tool results', value: stats(raw).median }),
    figure('compress_tier1_tokens_saved', 'tokens', [before - after], `> 50% of ${before} tokens`, (v) => v > before / 2, { label: 'tokens before compression', value: before }),
  ];
}

const suite: Suite = {
  name: 'agents',
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-agents-'));
    const model = await ScriptedModel.start();
    const p = prepare(dir, model);
    process.env.YAGENT_HOME = p.home;
    const { config } = await loadConfig({ configPath: p.config });
    const rt = await Runtime.start({ hasResponder: false });
    try {
      await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: p.home, notesRoot: join(p.home, 'notes') } });
      let k = 0;
      /** One 20-step run of the repo agent on a warm spare; returns its median gap. */
      const ours = async (): Promise<number> => {
        await rt.warm(); // the gap is measured on a booted worker, not a cold boot
        model.reset();
        const taskId = `bench-${k++}`;
        const task = await rt.startTask(taskId);
        const settings = { ...settingsFrom({ prompt: '', workspace: p.ws, config, configPath: p.config }, taskId, taskId), maxStepsOverride: { repo: STEPS + 5 } };
        const input: AgentRunInput = { agent: 'repo', role: 'repo', brief: 'read the files', settings, delegationId: null, parentSessionId: null };
        const out = await task.spawn<AgentRunInput, AgentRunOutput>({ name: 'repo', module: AGENT_MODULE, input, delegationId: null });
        await rt.endTask(taskId);
        if (model.requests !== STEPS + 1) throw new Error(`bench agents: ${model.requests} model requests (stop: ${out.stopReason} ${out.error ?? ''}), want ${STEPS + 1}`);
        return stats(model.gaps()).median;
      };
      const reference = async (): Promise<number> => stats((await runReference(model, dir, p)).gaps).median;
      await ours();
      await reference();
      const oursGaps: number[] = [];
      const refGaps: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        if (i % 2 === 0) {
          oursGaps.push(await ours());
          refGaps.push(await reference());
        } else {
          refGaps.push(await reference());
          oursGaps.push(await ours());
        }
      }
      process.stderr.write(`agents: harness gap ${oursGaps.map(round).join(' ')} | reference ${refGaps.map(round).join(' ')}\n`);
      const resume = await resumeLatencyFigure();
      const writeAhead = await writeAheadFigure(rt, p.ws, RUNS);
      return [
        pairedFigure('harness_gap_per_step', 'ms', oursGaps, refGaps, '<= 3x the reference agent loop', (v, b) => v <= 3 * b, 'reference agent loop (own process, same fake model): tool-call reply written -> next request received, median of 20 steps (pair with the median ratio)'),
        ...(await compressionFigures()),
        resume,
        writeAhead,
        ...(await meterFigures(rt.cpu, RUNS * 4)),
      ];
    } finally {
      await rt.shutdown();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
