// Wiring between agents, tools and the store: the per-call note index and the delegation hook.
import { readFileSync } from 'node:fs';
import { TokenCounter } from '../../src/actors/llm/tokens.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LlmEngine } from '../../src/actors/llm/types.js';
import { StoreService } from '../../src/store/service.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { NOTE_INDEX_HEADER } from '../../src/actors/agents/transient.js';
import type { SpawnChild } from '../../src/actors/agents/delegation.js';
import { actorEnv } from '../../src/actors/agents/agent-actor.js';
import type { ActorContext } from '../../src/runtime/actor.js';
import { realClock } from '../../src/runtime/clock.js';
import { PauseController } from '../../src/runtime/pause.js';
import { makeHarness, ScriptedModel, THOUGHT, type Reply } from './harness.js';

const readHello: Reply = { text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] };
const indexOf = (messages: readonly { role: string; content: string }[]): string =>
  messages.find((m) => m.role === 'user' && m.content.startsWith(NOTE_INDEX_HEADER))?.content ?? '';

describe('agents ↔ store wiring', () => {
  it('a note written just before an LLM call is in that call\'s index (no staleness window)', async () => {
    const h = makeHarness();
    // a sibling in another process: its writes never pass through this run's store
    const sibling = new StoreService({ env: { YAGENT_HOME: join(h.root, 'home') } });
    const write = (conclusion: string): Promise<unknown> =>
      sibling.writeNote({ boardId: h.settings.boardId, agent: 'devops', body: `${conclusion} in full`, handoff: { version: 2, agent: 'devops', status: 'ok', conclusion, facts: [], artifacts: [], mentions: [] } });
    const model = new ScriptedModel({ repo: [readHello, readHello, { text: 'done' }] });
    // each reply is followed by the sibling's next note, right before the loop builds the next call's index
    const engine: LlmEngine = {
      describe: () => model.describe(),
      call: async (req) => {
        const res = await model.call(req);
        await write(`sibling note ${model.byAgent('repo').length}`);
        return res;
      },
    };
    const out = await runAgent(h.env(engine), { agent: 'repo', role: 'repo', brief: 'look', settings: h.settings, delegationId: null, parentSessionId: null });
    expect(out.stopReason).not.toBe('panic');
    const reqs = model.byAgent('repo');
    expect(reqs.length).toBeGreaterThanOrEqual(3);
    expect(indexOf(reqs[0].messages)).toBe('');
    expect(indexOf(reqs[1].messages)).toContain('sibling note 1');
    expect(indexOf(reqs[2].messages)).toContain('sibling note 2');
  });

  it('a delegate_* call names its child delegation:<call_id>:<agent> and cancels it with the call', async () => {
    const h = makeHarness();
    const seen: { name: string; delegationId: string; signal: AbortSignal }[] = [];
    const spawn: SpawnChild = (name, input, delegationId, signal) => {
      seen.push({ name, delegationId, signal });
      return Promise.resolve({ agent: input.agent, stopReason: 'agent_exit', text: 'ok', steps: 1, usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, rolloutPath: '', sessionId: 's', thoughtFailures: 0 });
    };
    const model = new ScriptedModel({ director: [{ text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'look' }, id: 'call-77' }] }, { text: 'done' }] });
    const out = await h.run(model, 'go', { spawn });
    expect(out.stopReason).toBe('plain_text');
    expect(seen.map((s) => [s.name, s.delegationId])).toEqual([['delegation:call-77:repo', 'call-77']]);
    expect(seen[0].signal.aborted).toBe(false);
  });

  it('the harness env is production\'s buildAgentEnv: same ports and carriers, only the seams differ (pitfalls 33/39)', () => {
    const h = makeHarness();
    // a worker's context, enough to wire (nothing is called): production's actorEnv, as agent-actor.ts runs it
    const ctx = {
      connect: () => ({}),
      publish: () => undefined,
      clock: realClock,
      pause: new PauseController(),
      signal: new AbortController().signal,
      shared: {},
      requestUserHelp: () => Promise.reject(new Error('unused')),
      spawn: () => Promise.reject(new Error('unused')),
    } as unknown as ActorContext;
    const prod = actorEnv(ctx, h.config);
    const test = h.env(new ScriptedModel({}));
    expect(Object.keys(test).filter((k) => !(k in prod))).toEqual(['retryBackoffMs']);
    expect(Object.keys(prod).filter((k) => !(k in test))).toEqual([]);
    // same counter, different place: the CPU pool in a worker, this thread in-process
    expect(test.tokens).toBeInstanceOf(TokenCounter);
    expect(prod.tokens).toBeInstanceOf(TokenCounter);
    expect(test.breaker).toEqual(prod.breaker);
    expect(test.palette()).toEqual(prod.palette());
    // the harness builds no carrier of its own: no direct tool wiring, project-context cache or palette
    const src = readFileSync(new URL('./harness.ts', import.meta.url), 'utf8');
    expect(src).toContain('buildAgentEnv(');
    expect(src).not.toMatch(/tool-wiring|project-context|countTextTokens|paletteNames/);
  });
});
