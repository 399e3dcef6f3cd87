// Suite `agents`: harness overhead per agent step — a repo agent actor on real workers, the real store and
// dispatcher, in this process — beside the reference agent loop (bench/reference-agent.mjs, its own process)
// on the same loopback fake model with the same 20-step script; runs alternate A/B.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pairedFigure, round, stats, type Figure, type Suite } from './lib.js';
import { prepare, runReference, ScriptedModel, STEPS } from './side-by-side.js';
import { Runtime } from '../src/runtime/runtime.js';
import { loadConfig } from '../src/runtime/config/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../src/store/client.js';
import { AGENT_MODULE } from '../src/actors/agents/agent-actor.js';
import { settingsFrom } from '../src/actors/agents/run-task.js';
import type { AgentRunInput, AgentRunOutput } from '../src/actors/agents/run-types.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

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
      return [
        pairedFigure('harness_gap_per_step', 'ms', oursGaps, refGaps, '<= 3x the reference agent loop', (v, b) => v <= 3 * b, 'reference agent loop (own process, same fake model): tool-call reply written -> next request received, median of 20 steps (pair with the median ratio)'),
      ];
    } finally {
      await rt.shutdown();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
