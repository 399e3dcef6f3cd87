import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LlmRequest } from '../../src/actors/llm/types.js';
import { UNDELEGATED_REMINDER } from '../../src/actors/agents/run-agent.js';
import { NOTE_INDEX_HEADER, MENTIONS_HEADER } from '../../src/actors/agents/transient.js';
import { makeHarness, ScriptedModel, exitCall, THOUGHT, toolMessages, type Reply } from './harness.js';

const delegate = (agent: string, task: string, refs: string[] = [], id?: string): Reply => ({
  text: THOUGHT,
  calls: [{ name: `delegate_${agent}`, args: { task, context_refs: refs }, ...(id ? { id } : {}) }],
});
const noteRef = (text: string): string => /note ([^\s\]]+)\]/.exec(text)?.[1] ?? 'missing-ref';
const lastTool = (req: LlmRequest): string => toolMessages(req).at(-1) ?? '';

describe('Director planner', () => {
  it('a direct answer that claims no work is the answer: one call, no reminder', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ director: [{ text: 'Hello! How can I help?' }, { text: 'unused' }] });
    const out = await h.run(model, 'hi');
    expect(out).toMatchObject({ stopReason: 'plain_text', text: 'Hello! How can I help?' });
    expect(model.byAgent('director')).toHaveLength(1);
  });

  it('an un-delegated answer claiming work is reminded once, with the reminder sent once and kept out of the history', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ director: [{ text: "I've updated src/app.ts." }, { text: 'I fixed it, really.' }, { text: 'unused' }] });
    const out = await h.run(model, 'fix the bug');
    expect(out).toMatchObject({ stopReason: 'plain_text', text: 'I fixed it, really.' });
    const calls = model.byAgent('director');
    expect(calls).toHaveLength(2);
    expect(calls[1].messages.slice(-2)).toEqual([{ role: 'assistant', content: "I've updated src/app.ts." }, { role: 'user', content: UNDELEGATED_REMINDER }]);
    await h.store.drain(out.rolloutPath);
    const rollout = readFileSync(out.rolloutPath, 'utf8');
    expect(rollout).toContain('"kind":"answer_reminded"');
    expect(rollout).not.toContain(UNDELEGATED_REMINDER);
    expect(rollout).not.toContain('"role":"assistant","content":"I\'ve updated src/app.ts."');
  });

  it('after a delegation a plain reply is the final answer', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ director: [delegate('chat', 'what is 2+2'), { text: 'It is 4.' }], chat: [{ text: '4' }] });
    const out = await h.run(model, 'what is 2+2');
    expect(out).toMatchObject({ stopReason: 'plain_text', text: 'It is 4.' });
  });

  it('a delegation writes one note whose body is the full deliverable, status from the model', async () => {
    const h = makeHarness();
    const deliverable = 'Full report: hello.txt contains one line.';
    const model = new ScriptedModel({ director: [delegate('repo', 'inspect hello.txt'), { text: 'done' }], repo: [{ text: THOUGHT, ...exitCall(deliverable, 'partial') }] });
    await h.run(model, 'look');
    const notes = await h.store.listNotes(h.settings.boardId);
    expect(notes).toHaveLength(1);
    expect(notes[0].handoff).toMatchObject({ agent: 'repo', status: 'partial', delegationId: expect.any(String) as string });
    expect((await h.store.readNote(h.settings.boardId, notes[0].ref))?.body).toBe(deliverable);
    expect(lastTool(model.byAgent('director')[1])).toContain(deliverable);
    expect(h.events.filter((e) => e.type === 'delegation_start' || e.type === 'delegation_end').map((e) => e.type)).toEqual(['delegation_start', 'delegation_end']);
  });

  it('a delegation result carries the handoff\'s facts and changed files (what the delegate_* descriptions promise)', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [delegate('coding', 'fix it', ['src/app.ts']), { text: 'done' }],
      coding: [
        (req) => ({
          calls: [{ name: 'agent_exit', args: { conclusion: `told to read: ${req.messages[1].content.includes('read_file') && req.messages[1].content.includes('src/app.ts')}`, status: 'ok', facts: ['tests pass'], artifacts: ['src/app.ts'] } }],
        }),
      ],
    });
    await h.run(model, 'fix');
    const result = lastTool(model.byAgent('director')[1]);
    expect(result).toContain('told to read: true');
    expect(result).toContain('- tests pass');
    expect(result).toContain('Files and artifacts: src/app.ts');
  });

  it('a deliverable over the token budget goes to an artifact; the context keeps a summary and its id', async () => {
    const h = makeHarness({ artifactTokenBudget: 50 });
    const long = Array.from({ length: 60 }, (_, i) => `line ${i} of the long deliverable`).join('\n');
    const model = new ScriptedModel({ director: [delegate('repo', 'big'), { text: 'ok' }], repo: [exitCall(long)] });
    await h.run(model, 'big');
    const content = lastTool(model.byAgent('director')[1]);
    const id = /artifact (\d{8}-\d{6}-[0-9a-f]{8})/.exec(content)?.[1];
    expect(id).toBeDefined();
    expect(content.length).toBeLessThan(long.length);
    expect((await h.store.readArtifact(id ?? '', 0, 100_000)).text).toBe(long);
    const [note] = await h.store.listNotes(h.settings.boardId);
    expect((await h.store.readNote(h.settings.boardId, note.ref))?.body).toBe(long);
    expect(note.handoff.artifacts).toContain(id);
  });

  it('the note index goes into every Director call, once, and never into the rollout', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [delegate('repo', 'one'), delegate('repo', 'two'), { text: 'final' }],
      repo: [exitCall('first finding'), exitCall('second finding')],
    });
    const out = await h.run(model, 'go');
    const calls = model.byAgent('director');
    const counts = calls.map((r) => r.messages.filter((m) => m.content.startsWith(NOTE_INDEX_HEADER)).length);
    expect(counts).toEqual([0, 1, 1]);
    expect(calls[2].messages.find((m) => m.content.startsWith(NOTE_INDEX_HEADER))?.content).toContain('second finding');
    // sub-agents see it in their calls too (the delegation prefix)
    expect(model.byAgent('repo')[1].messages.some((m) => m.content.startsWith(NOTE_INDEX_HEADER))).toBe(true);
    await h.store.drain(out.rolloutPath);
    expect(readFileSync(out.rolloutPath, 'utf8')).not.toContain(NOTE_INDEX_HEADER);
  });

  it('handoff across two delegations through notes: the second brief carries the first note in full', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [delegate('repo', 'find the greeting'), (req) => delegate('coding', 'change the greeting in hello.txt', [noteRef(lastTool(req))]), { text: 'done' }],
      repo: [exitCall('The greeting lives in hello.txt line 1: "hello world".')],
      coding: [(req) => exitCall(`brief had repo note: ${req.messages.some((m) => m.role === 'user' && m.content.includes('hello.txt line 1'))}`)],
    });
    await h.run(model, 'change greeting');
    const notes = await h.store.listNotes(h.settings.boardId);
    const coding = notes.find((n) => n.agent === 'coding');
    expect((await h.store.readNote(h.settings.boardId, coding?.ref ?? ''))?.body).toBe('brief had repo note: true');
  });

  it('delegation concurrency is a pool per run: size 1 serialises, nested delegations use their own pool', async () => {
    const h = makeHarness({ maxParallelDelegations: 1 });
    let active = 0;
    let peak = 0;
    const model = new ScriptedModel({
      director: [{ text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'a' } }, { name: 'delegate_repo', args: { task: 'b' } }] }, { text: 'done' }],
      // each repo nests a devops delegation while it holds the Director's only slot: a shared pool would deadlock
      repo: [delegate('devops', 'node version'), exitCall('repo a'), delegate('devops', 'node version'), exitCall('repo b')],
      devops: [exitCall('v20'), exitCall('v20')],
    });
    const base = h.env(model);
    const out = await h.run(model, 'go', {
      spawn: async (...a: Parameters<typeof base.spawn>) => {
        const top = a[1].agent === 'repo';
        if (top) peak = Math.max(peak, ++active);
        try {
          await new Promise((r) => setImmediate(r)); // a turn of the event loop: a second repo let through would start now
          return await base.spawn(...a);
        } finally {
          if (top) active--;
        }
      },
    });
    expect(out.stopReason).toBe('plain_text');
    expect(peak).toBe(1);
    expect((await h.store.listNotes(h.settings.boardId)).map((n) => n.agent).sort()).toEqual(['devops', 'devops', 'repo', 'repo']);
  });

  it('a read-only delegation pool of 2 runs two delegations at once', async () => {
    const h = makeHarness({ maxParallelDelegations: 2 });
    let bothIn: () => void = () => undefined;
    const both = new Promise<void>((r) => (bothIn = r));
    let active = 0;
    let peak = 0;
    const model = new ScriptedModel({
      director: [{ text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'a' } }, { name: 'delegate_repo', args: { task: 'b' } }] }, { text: 'done' }],
      repo: [exitCall('a'), exitCall('b')],
    });
    const base = h.env(model);
    await h.run(model, 'go', {
      spawn: async (...a: Parameters<typeof base.spawn>) => {
        active++;
        peak = Math.max(peak, active);
        if (active === 2) bothIn();
        await both; // each waits for the other: a pool of one never lets the second in (the test then times out)
        try {
          return await base.spawn(...a);
        } finally {
          active--;
        }
      },
    });
    expect(peak).toBe(2);
  });

  it('a sub-agent that goes idle stops with idle_timeout: an error note, an error result, the task goes on', async () => {
    const h = makeHarness({ delegateIdleMs: 40 });
    const model = new ScriptedModel({ director: [delegate('repo', 'hang'), { text: 'reported the failure' }], repo: [{ stall: true }] });
    const out = await h.run(model, 'go');
    expect(out).toMatchObject({ stopReason: 'plain_text', text: 'reported the failure' });
    const result = lastTool(model.byAgent('director')[1]);
    expect(result).toContain('delegation_failed');
    expect(result).toContain('idle_timeout');
    const [note] = await h.store.listNotes(h.settings.boardId);
    expect(note.handoff.status).toBe('error');
  });

  it('a sub-agent that crashes mid-tool (no rollout to replay) gives the Director a degraded report for that call and the task goes on', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({ director: [delegate('coding', 'write'), { text: 'went on' }] });
    const crash = (): Promise<never> => Promise.reject(Object.assign(new Error('worker exited with code 1 during run_bash'), { code: 'ACTOR_CRASHED' }));
    const out = await h.run(model, 'go', { spawn: crash });
    expect(out.text).toBe('went on');
    expect(lastTool(model.byAgent('director')[1])).toContain('ACTOR_CRASHED');
    const [note] = await h.store.listNotes(h.settings.boardId);
    expect(note.handoff.status).toBe('degraded');
  });

  it('an abandoned (cancelled) delegation writes nothing', async () => {
    const h = makeHarness();
    const ctl = new AbortController();
    const model = new ScriptedModel({ director: [delegate('repo', 'hang')], repo: [{ stall: true }] });
    const p = h.run(model, 'go', { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 40);
    expect((await p).stopReason).toBe('cancelled');
    expect(await h.store.listNotes(h.settings.boardId)).toHaveLength(0);
  });

  it('mentions in a note become pending for the Director; following one sets triggered_by on the output note', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [
        delegate('repo', 'audit'),
        (req) => {
          const pending = req.messages.find((m) => m.content.startsWith(MENTIONS_HEADER))?.content ?? '';
          const ref = /@coding ← note (\S+)/.exec(pending)?.[1] ?? 'none';
          return delegate('coding', 'do what the audit asks', [ref]);
        },
        { text: 'done' },
      ],
      repo: [exitCall('Found a typo in hello.txt. @coding please fix it.')],
      coding: [exitCall('fixed')],
    });
    await h.run(model, 'go');
    const notes = await h.store.listNotes(h.settings.boardId);
    const repo = notes.find((n) => n.agent === 'repo');
    const coding = notes.find((n) => n.agent === 'coding');
    expect(repo?.handoff.mentions).toEqual(['coding']);
    expect(coding?.handoff.triggeredBy).toBe(repo?.ref);
    expect(model.byAgent('director')[2].messages.some((m) => m.content.startsWith(MENTIONS_HEADER))).toBe(false);
  });
});
