import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { CLOSING_REMINDER } from '../../src/actors/agents/loop.js';
import type { AgentRunInput } from '../../src/actors/agents/run-types.js';
import { PauseController } from '../../src/runtime/pause.js';
import { makeHarness, ScriptedModel, exitCall, THOUGHT, type Harness, type Step } from './harness.js';

/** A pause gate that says when a run first waits on it, and whether that wait is still holding the run. */
class WatchedGate extends PauseController {
  private hit: () => void = () => undefined;
  readonly reached = new Promise<void>((r) => (this.hit = r));
  holding = false;
  override wait(signal?: AbortSignal): Promise<void> {
    this.holding = true;
    this.hit();
    return super.wait(signal).finally(() => (this.holding = false));
  }
}

function sub(h: Harness, role: AgentRunInput['role'], brief = 'do it'): AgentRunInput {
  return { agent: role, role, brief, settings: h.settings, delegationId: 'call_x', parentSessionId: 'parent' };
}

async function rollout(h: Harness, path: string): Promise<{ type: string; payload: Record<string, unknown> }[]> {
  await h.store.drain(path);
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
}

describe('run loop', () => {
  it('agent_exit returns at once with the full deliverable and stop reason agent_exit', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ repo: [{ text: THOUGHT, ...exitCall('the whole answer', 'ok', ['f1']) }, { text: 'never reached' }] });
    const out = await runAgent(h.env(model), sub(h, 'repo'));
    expect(out.stopReason).toBe('agent_exit');
    expect(out.text).toBe('the whole answer');
    expect(out.exit?.facts).toEqual(['f1']);
    expect(model.byAgent('repo')).toHaveLength(1);
  });

  it('plain text is reminded per the agent flags, then ends with plain_text', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ coding: [{ text: 'first' }, { text: 'second' }, { text: 'third' }, { text: 'fourth' }] });
    const out = await runAgent(h.env(model), sub(h, 'coding'));
    expect(out.stopReason).toBe('plain_text');
    expect(out.text).toBe('third'); // coding: noActionRetryLimit 2 → two reminders
    const last = model.byAgent('coding')[2];
    expect(last.messages.filter((m) => m.role === 'user' && m.content === CLOSING_REMINDER)).toHaveLength(2);
  });

  it('chat finishes on its first plain reply (noActionRetryLimit 0)', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ chat: [{ text: 'the answer' }] });
    const out = await runAgent(h.env(model), sub(h, 'chat'));
    expect(out).toMatchObject({ stopReason: 'plain_text', text: 'the answer' });
  });

  it('the step limit gives max_steps', async () => {
    const h = makeHarness({ maxStepsOverride: { repo: 3 } });
    const read: Step = { text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] };
    const model = new ScriptedModel({ repo: [read, read, read, read] });
    const out = await runAgent(h.env(model), sub(h, 'repo'));
    expect(out.stopReason).toBe('max_steps');
    expect(out.steps).toBe(3);
  });

  it('tool results come back one per call in order, read-only calls batched', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      repo: [
        { text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }, { name: 'list_dir', args: { path: '.' } }] },
        (req) => {
          const tools = req.messages.filter((m) => m.role === 'tool');
          return exitCall(`${tools.length} results; first has hello: ${tools[0]?.content.includes('hello world') ?? false}`);
        },
      ],
    });
    const out = await runAgent(h.env(model), sub(h, 'repo'));
    expect(out.text).toBe('2 results; first has hello: true');
  });

  it('an LLM failure after the step retries stops with llm_error and records it', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ devops: [{ fail: 'boom' }, { fail: 'boom' }, { fail: 'boom' }, { text: 'late' }] });
    const out = await runAgent(h.env(model), sub(h, 'devops'));
    expect(out.stopReason).toBe('llm_error');
    expect(model.byAgent('devops')).toHaveLength(3); // 1 + stepRetries (2)
    const recs = await rollout(h, out.rolloutPath);
    expect(recs.at(-2)).toMatchObject({ type: 'event_msg', payload: { kind: 'stop', stopReason: 'llm_error' } });
    expect(recs.at(-1)).toMatchObject({ type: 'agent_checkpoint', payload: { stopReason: 'llm_error' } });
  });

  it('an exception in the loop is caught and recorded as turn_aborted', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ repo: [{ text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }] });
    const env = h.env(model);
    const broken = {
      ...env,
      toolsFor: (...a: Parameters<typeof env.toolsFor>) => {
        const port = env.toolsFor(...a);
        return { defs: () => port.defs(), runBatch: () => Promise.reject(new Error('tool layer exploded')) };
      },
    };
    const out = await runAgent(broken, sub(h, 'repo'));
    expect(out.stopReason).toBe('panic');
    const recs = await rollout(h, out.rolloutPath);
    expect(recs.some((r) => r.type === 'event_msg' && r.payload.kind === 'turn_aborted' && String(r.payload.detail).includes('exploded'))).toBe(true);
  });

  it('the whole conversation and the stop reason reach the rollout, child file suffixed with the agent', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ repo: [{ text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }, { text: THOUGHT, ...exitCall('done') }] });
    const out = await runAgent(h.env(model), sub(h, 'repo'));
    expect(out.rolloutPath).toMatch(/_repo\.jsonl$/);
    const recs = await rollout(h, out.rolloutPath);
    expect(recs[0]).toMatchObject({ type: 'session_meta', payload: { agent: 'repo', delegationId: 'call_x', parentSessionId: 'parent' } });
    const roles = recs.filter((r) => r.type === 'response_item').map((r) => r.payload.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(recs.at(-2)).toMatchObject({ type: 'event_msg', payload: { kind: 'stop', stopReason: 'agent_exit' } });
    // one checkpoint, on the terminal path only (never one per step), fingerprinted by the store's reader side
    expect(recs.filter((r) => r.type === 'agent_checkpoint')).toHaveLength(1);
    expect(recs.at(-1)).toMatchObject({ type: 'agent_checkpoint', payload: { stopReason: 'agent_exit', delegationId: 'call_x', step: 2 } });
  });

  it('a malformed thought block is recorded, never silent', async () => {
    const h = makeHarness();
    const bad = '<thought>\ngoal: g\nplan:\n[>] a\n[>] b\n</thought>';
    const model = new ScriptedModel({ coding: [{ text: bad, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }, { text: THOUGHT, ...exitCall('ok') }] });
    const out = await runAgent(h.env(model), sub(h, 'coding'));
    expect(out.thoughtFailures).toBe(1);
    const recs = await rollout(h, out.rolloutPath);
    expect(recs.filter((r) => r.type === 'event_msg' && r.payload.kind === 'thought_invalid')).toHaveLength(1);
    expect(h.events.some((e) => e.type === 'log' && e.source === 'thought' && e.message.includes('no valid <thought> block'))).toBe(true);
  });

  it('cancellation stops with cancelled', async () => {
    const h = makeHarness();
    const ctl = new AbortController();
    const model = new ScriptedModel({ repo: [{ stall: true }] });
    const p = runAgent(h.env(model, { signal: ctl.signal }), sub(h, 'repo'));
    setTimeout(() => ctl.abort(), 20);
    expect((await p).stopReason).toBe('cancelled');
  });

  it('the pause gate blocks at the step boundary and resuming continues without cancelling', async () => {
    const h = makeHarness();
    const gate = new WatchedGate();
    gate.pause();
    const model = new ScriptedModel({ chat: [{ text: 'after resume' }] });
    const p = runAgent(h.env(model, { pause: gate }), sub(h, 'chat'));
    await gate.reached; // the loop is at its step boundary: it called no model before it
    await new Promise((r) => setImmediate(r));
    expect(gate.holding).toBe(true); // and the gate holds it there
    expect(model.byAgent('chat')).toHaveLength(0);
    gate.resume();
    expect(await p).toMatchObject({ stopReason: 'plain_text', text: 'after resume' });
  });
});
