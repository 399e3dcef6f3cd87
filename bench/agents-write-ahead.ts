// Figure `write_ahead_step_ratio` of suite `agents`: the cost of the write-ahead record (issue 24: a call that can
// change anything is durable in its rollout before it runs). One step = the assistant record appended, one
// `run_bash echo` through the production batch runner (coding surface, sandbox auto, the real store actor over its
// port), its result appended. Ours awaits the recorder's writeAhead() (drain + fsync) before the call; the baseline is
// the same step without it. Samples alternate, order swapped each pair.
import type { Runtime } from '../src/runtime/runtime.js';
import type { StoreApi } from '../src/store/api.js';
import { STORE_ACTOR } from '../src/store/client.js';
import { StoreRecorder } from '../src/actors/agents/recorder.js';
import { runBatch } from '../src/actors/tools/batch.js';
import { surfaceFor } from '../src/actors/tools/profiles.js';
import { WorkspaceGuard } from '../src/actors/tools/workspace-guard.js';
import { Boundary, boundaryPolicy } from '../src/actors/tools/boundary.js';
import { Grants } from '../src/actors/tools/grants.js';
import { headlessAuthorizer } from '../src/actors/tools/authorizer.js';
import { shellSandbox } from '../src/actors/tools/sandbox-run.js';
import { buildShellEnv } from '../src/actors/tools/shell-env.js';
import type { AdapterDeps } from '../src/actors/tools/adapter.js';
import { alternate, ms, pairedFigure, round, type Figure } from './lib.js';

/** Steps per sample: long enough that one scheduler hiccup does not decide a sample. */
const STEPS_PER_SAMPLE = 10;

function deps(ws: string): AdapterDeps {
  const boundary = new Boundary(ws, boundaryPolicy(process.env, []));
  const shellEnv = buildShellEnv(process.env);
  const sandbox = shellSandbox('auto', [], shellEnv, boundary.policy.home);
  return {
    surface: surfaceFor('coding'),
    guard: new WorkspaceGuard(ws, boundary, shellEnv, sandbox),
    grants: new Grants(true), // -y: the step runs without asking
    authorizer: headlessAuthorizer,
    env: {
      workspace: ws, agent: 'coding', taskId: 'bench-wa', delegationId: null, boardId: 'bench-wa', boundary, shellEnv, sandbox,
      askUser: () => Promise.reject(new Error('no user')),
      store: { listNotes: () => Promise.resolve(''), readNote: () => Promise.resolve(''), readArtifact: () => Promise.resolve(''), writeArtifact: () => Promise.resolve(''), writeImageArtifact: () => Promise.resolve('') },
      delegate: () => Promise.resolve({ kind: 'error', error: { kind: 'none', message: 'no delegation in bench' } }),
    },
  };
}

export async function writeAheadFigure(rt: Runtime, ws: string, runs: number): Promise<Figure> {
  const store = rt.connect<StoreApi>(STORE_ACTOR);
  const handle = await store.openRollout({ sessionId: 'bench-wa', taskId: 'bench-wa', agent: 'coding', projectId: 'bench', cwd: ws, delegationId: null, parentSessionId: null, boardId: 'bench-wa' }, {});
  const recorder = new StoreRecorder(Promise.resolve(handle.path), store, () => undefined);
  const d = deps(ws);
  let n = 0;
  const step = async (writeAhead: boolean): Promise<void> => {
    const id = `wa_${n++}`;
    const call = { id, name: 'run_bash', arguments: JSON.stringify({ command: 'echo hi', is_dangerous: false }) };
    recorder.append([{ type: 'response_item', ts: Date.now(), payload: { role: 'assistant', content: '', toolCalls: [call] } }]);
    const r = await runBatch([call], d, { signal: new AbortController().signal, ...(writeAhead ? { beforeEffect: () => recorder.writeAhead() } : {}) });
    const res = r.results[0];
    if (res?.status !== 'ok' || !res.content.includes('hi')) throw new Error(`bench write-ahead: run_bash echo did not run: ${res?.content ?? 'no result'}`);
    recorder.append([{ type: 'response_item', ts: Date.now(), payload: { role: 'tool', toolCallId: id, name: 'run_bash', content: res.content } }]);
  };
  const sample = (writeAhead: boolean) => async (): Promise<number> => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < STEPS_PER_SAMPLE; i++) await step(writeAhead);
    const v = ms(t0) / STEPS_PER_SAMPLE;
    await recorder.drain(); // what a sample left queued is not the next sample's cost
    return v;
  };
  const [ours, base] = await alternate(runs, sample(true), sample(false));
  process.stderr.write(`agents: write-ahead step ${ours.map(round).join(' ')} | without ${base.map(round).join(' ')}\n`);
  return pairedFigure('write_ahead_step_ratio', 'ms', ours, base, '<= 1.1x the same step without the record', (v, b) => v <= 1.1 * b, `the same step (assistant record, one run_bash echo through the production batch runner with sandbox auto, its result record) without the write-ahead drain + fsync, ${STEPS_PER_SAMPLE} steps per sample, alternating`);
}
