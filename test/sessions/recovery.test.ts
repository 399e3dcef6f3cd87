// Sessions and recovery in-process: real runtime, workers, store actor; only the model is scripted.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTask, type TaskResult } from '../../src/actors/agents/run-task.js';
import { pairsIntact } from '../../src/actors/agents/compression/turns.js';
import type { SessionMeta, StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR, projectIdFor } from '../../src/store/client.js';
import { call, exit, THOUGHT, until, world, type World } from './helpers.js';

let w: World;
beforeEach(async () => {
  w = await world();
}, 60_000);
afterEach(async () => w?.close());

const text = (req: { body: Record<string, unknown> }): string => JSON.stringify(req.body.messages ?? []);
const say = (t: string) => ({ text: t });
const SIDE = 'echo ran >> side.txt';

/** Turn 1: the Director delegates to Coding; Coding runs one side effect, then its next model call stalls and the
 *  task is cancelled between tool rounds. Returns the cancelled turn. */
async function interruptedTurn(): Promise<TaskResult | Error> {
  w.fake.script('director', call('delegate_coding', { task: 'run the side effect, then finish', context_refs: [] }));
  w.fake.script('coding', call('run_bash', { command: SIDE, is_dangerous: false }), { text: 'x', fault: { kind: 'stall', afterEvents: 1 } });
  const ctl = new AbortController();
  const running = runTask(w.rt, { ...w.base, prompt: 'do the work', taskId: 'turn-1', yolo: true, signal: ctl.signal }).catch((e: Error) => e);
  await until(() => w.fake.requestsFor('coding').length >= 2, "Coding's second model call");
  expect(w.fake.requestsFor('coding')).toHaveLength(2);
  ctl.abort(new Error('cancelled by the test'));
  return running;
}

/** Turns the user's cancel of turn 1 into what a kill leaves: no turn end in the session ledger, no stop or checkpoint
 *  in the Director's rollout (its delegations keep what they recorded). A cancelled turn is never resumed; a killed one is.
 *  `directorStop`: the Director's rollout keeps its stop (only the ledger's turn end is lost). */
function asIfKilled(taskId: string, directorStop = false): void {
  const strip = (file: string, drop: (line: string) => boolean): void => writeFileSync(file, readFileSync(file, 'utf8').split('\n').filter((l) => !drop(l)).join('\n'));
  const sessions = join(w.home, 'data', 'sessions');
  for (const d of readdirSync(sessions)) for (const f of readdirSync(join(sessions, d))) strip(join(sessions, d, f), (l) => l.includes('"turn_end"') && l.includes(`"${taskId}"`));
  const rollouts = join(w.home, 'data', 'rollout');
  for (const d of readdirSync(rollouts)) {
    for (const f of readdirSync(join(rollouts, d))) {
      const file = join(rollouts, d, f);
      const meta = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '{}') as { payload?: { taskId?: string; delegationId?: string | null } };
      if (!directorStop && meta.payload?.taskId === taskId && meta.payload.delegationId === null) strip(file, (l) => l.includes('"agent_checkpoint"') || l.includes('"kind":"stop"'));
    }
  }
}

const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: w.base.workspace, encoding: 'utf8' }).trim();

/** The cancelled Coding run writes its stop and checkpoint on its way out (the stop hook waits for the run). */
async function checkpointed(): Promise<void> {
  await until(() => readFileSync(codingRollout(), 'utf8').includes('"agent_checkpoint"'), "the cancelled Coding run's checkpoint");
  expect(readFileSync(codingRollout(), 'utf8')).toContain('"agent_checkpoint"');
}

function codingRollout(): string {
  const dirs = readdirSync(join(w.home, 'data', 'rollout'));
  const dir = join(w.home, 'data', 'rollout', dirs[0] ?? '');
  // the first incarnation's: by its session_meta's stamp (two file names made in one second sort by a random id)
  const started = (f: string): number => (JSON.parse(readFileSync(join(dir, f), 'utf8').split('\n')[0] ?? '{}') as { ts?: number }).ts ?? 0;
  const files = readdirSync(dir).filter((f) => f.endsWith('_coding.jsonl')).sort((a, b) => started(a) - started(b));
  return join(dir, files[0] ?? '');
}

describe('sessions', () => {
  it('a second turn of a session carries the first turn: the Director keeps its memory', async () => {
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer one')));
    const r1 = await runTask(w.rt, { ...w.base, prompt: 'first question', taskId: 't1' });
    expect(r1.session).toMatchObject({ id: 't1', resumed: false });
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer two')));
    const r2 = await runTask(w.rt, { ...w.base, prompt: 'second question', taskId: 't2', session: { resume: r1.session.id } });
    expect(r2.session).toMatchObject({ id: 't1', resumed: true });
    expect(r2.boardId).toBe(r1.boardId);
    const firstOfTurn2 = w.fake.requestsFor('director').find((q) => text(q).includes('second question'));
    expect(text(firstOfTurn2 ?? { body: {} })).toContain('first question');
    expect(text(firstOfTurn2 ?? { body: {} })).toContain('answer one');
    const store = w.rt.connect<StoreApi>(STORE_ACTOR);
    const sessions = await store.listSessions(projectIdFor(w.base.workspace));
    expect(sessions[0]).toMatchObject({ sessionId: 't1', turns: 2, lastPrompt: 'second question', stopReason: 'plain_text' });
  });

  it('a last turn killed before its Director recorded anything (header only): the next turn carries the turn before it', async () => {
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer one')));
    await runTask(w.rt, { ...w.base, prompt: 'first question', taskId: 'h1' });
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer two')));
    const r2 = await runTask(w.rt, { ...w.base, prompt: 'second question', taskId: 'h2', session: { resume: 'h1' } });
    asIfKilled('h2');
    writeFileSync(r2.rolloutPath, `${readFileSync(r2.rolloutPath, 'utf8').split('\n')[0] ?? ''}\n`); // its header alone
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer three')));
    const r3 = await runTask(w.rt, { ...w.base, prompt: 'third question', taskId: 'h3', session: { resume: 'h1' } });
    expect(r3.stopReason).toBe('plain_text');
    const body = text(w.fake.requestsFor('director').find((q) => text(q).includes('third question')) ?? { body: {} });
    expect(body).toContain('first question');
    expect(body).toContain('answer one');
    expect(body).toContain('(\\"second question\\") was interrupted'); // the empty turn is marked, by its prompt
  });

  it("a fork's first turn killed before its Director recorded anything: the fork's next turn carries the parent's turns up to the fork", async () => {
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer one')));
    await runTask(w.rt, { ...w.base, prompt: 'first question', taskId: 'p1' });
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('forked answer')));
    const f1 = await runTask(w.rt, { ...w.base, prompt: 'forked question', taskId: 'f1', session: { resume: 'p1', fork: true } });
    expect(f1.session).toMatchObject({ id: 'f1', forkedFrom: 'p1' });
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer two')));
    await runTask(w.rt, { ...w.base, prompt: 'parent after the fork', taskId: 'p2', session: { resume: 'p1' } });
    asIfKilled('f1');
    writeFileSync(f1.rolloutPath, `${readFileSync(f1.rolloutPath, 'utf8').split('\n')[0] ?? ''}\n`); // its header alone
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer three')));
    const f2 = await runTask(w.rt, { ...w.base, prompt: 'fork again', taskId: 'f2', session: { resume: 'f1' } });
    expect(f2.session).toMatchObject({ id: 'f1', resumed: true });
    const body = text(w.fake.requestsFor('director').find((q) => text(q).includes('fork again')) ?? { body: {} });
    expect(body).toContain('first question');
    expect(body).toContain('answer one');
    expect(body).toContain('(\\"forked question\\") was interrupted');
    expect(body).not.toContain('parent after the fork'); // the parent's turns after the fork are not the fork's
  });

  it("a fork of a fork killed before its Director recorded anything: its next turn carries the turns up to each fork point, named, not by clock", async () => {
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer one')));
    await runTask(w.rt, { ...w.base, prompt: 'first question', taskId: 'q1' });
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('forked answer')));
    await runTask(w.rt, { ...w.base, prompt: 'forked question', taskId: 'r1', session: { resume: 'q1', fork: true } });
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('second fork answer')));
    const g1 = await runTask(w.rt, { ...w.base, prompt: 'fork of the fork', taskId: 'g1', session: { resume: 'r1', fork: true } });
    expect(g1.session).toMatchObject({ id: 'g1', forkedFrom: 'r1' });
    w.fake.script('director', ...Array.from({ length: 8 }, () => say('later answer')));
    await runTask(w.rt, { ...w.base, prompt: 'fork after its fork', taskId: 'r2', session: { resume: 'r1' } });
    await runTask(w.rt, { ...w.base, prompt: 'parent after the forks', taskId: 'q2', session: { resume: 'q1' } });
    // the crash: g1's turn left its rollout header alone; and the clock had stepped back before it started (its
    // turn_start says it began before the turn it was forked from)
    asIfKilled('g1');
    writeFileSync(g1.rolloutPath, `${readFileSync(g1.rolloutPath, 'utf8').split('\n')[0] ?? ''}\n`);
    const sessions = join(w.home, 'data', 'sessions');
    for (const d of readdirSync(sessions)) {
      const f = join(sessions, d, 'g1.jsonl');
      if (existsSync(f)) writeFileSync(f, readFileSync(f, 'utf8').replace(/"ts":\d+/, '"ts":1'));
    }
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer three')));
    const g2 = await runTask(w.rt, { ...w.base, prompt: 'fork again', taskId: 'g2', session: { resume: 'g1' } });
    expect(g2.session).toMatchObject({ id: 'g1', resumed: true });
    const body = text(w.fake.requestsFor('director').find((q) => text(q).includes('fork again')) ?? { body: {} });
    expect(body).toContain('first question');
    expect(body).toContain('forked question'); // the turn g1 was forked from, found by its name
    expect(body).toContain('(\\"fork of the fork\\") was interrupted');
    expect(body).not.toContain('fork after its fork');
    expect(body).not.toContain('parent after the forks');
  });

  it('a resumed turn re-reads the project context: the system prompt is fresh, never the old turn\'s', async () => {
    const doc = join(w.base.workspace, 'AGENTS.md');
    writeFileSync(doc, '# rules\nRULE-OF-TURN-ONE\n');
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer one')));
    const r1 = await runTask(w.rt, { ...w.base, prompt: 'first question', taskId: 'ctx-1' });
    writeFileSync(doc, '# rules\nRULE-OF-TURN-TWO\n');
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer two')));
    await runTask(w.rt, { ...w.base, prompt: 'second question', taskId: 'ctx-2', session: { resume: r1.session.id } });
    const turn2 = w.fake.requestsFor('director').find((q) => text(q).includes('second question'));
    expect(text(turn2 ?? { body: {} })).toContain('RULE-OF-TURN-TWO');
    expect(text(turn2 ?? { body: {} })).not.toContain('RULE-OF-TURN-ONE');
    expect(text(turn2 ?? { body: {} })).toContain('answer one');
  });

  it('an unknown session is refused in one line; a failed last turn continues, marked as failed', async () => {
    await expect(runTask(w.rt, { ...w.base, prompt: 'x', session: { resume: 'nope' } })).rejects.toThrow(/no session "nope"/);
    w.fake.script('director', { fault: { kind: 'status' as const, status: 400, message: 'bad' } }); // not retryable: one call
    const r = await runTask(w.rt, { ...w.base, prompt: 'fail', taskId: 'f1' });
    expect(r.stopReason).toBe('llm_error');
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('answer again')));
    const again = await runTask(w.rt, { ...w.base, prompt: 'again', taskId: 'f2', session: { resume: 'f1' } });
    expect(again.error).toBeUndefined();
    expect(again).toMatchObject({ stopReason: 'plain_text', text: 'answer again', session: { id: 'f1', resumed: true } });
    const body = text(w.fake.requestsFor('director').at(-1) ?? { body: {} });
    expect(body).toContain('stopped with llm_error before it finished');
    expect(body.indexOf('\\"fail\\"')).toBeLessThan(body.indexOf('again'));
  });
});

describe('recovery', () => {
  it('a cancelled turn is never resumed: its delegation stays stopped and the Director reads what it did', async () => {
    await interruptedTurn();
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('something else')));
    const r = await runTask(w.rt, { ...w.base, prompt: 'another question', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ stopReason: 'plain_text', text: 'something else' });
    expect(w.fake.requestsFor('coding')).toHaveLength(2); // nothing of the cancelled Coding ran again
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
    const body = text(w.fake.requestsFor('director').at(-1) ?? { body: {} });
    expect(body).toContain('[coding cancelled by the user]');
    expect(body).toContain('run_bash ×1');
    expect(body).toContain('The user cancelled the previous turn');
  });

  it('a cancel whose turn end was never written (a second Ctrl-C quit at once) is still a cancel: nothing is resumed', async () => {
    await interruptedTurn();
    asIfKilled('turn-1', true); // the session ledger lost the turn's end; the Director's rollout still says cancelled
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('something else')));
    const r = await runTask(w.rt, { ...w.base, prompt: 'another question', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.text).toBe('something else');
    expect(w.fake.requestsFor('coding')).toHaveLength(2);
    expect(text(w.fake.requestsFor('director').at(-1) ?? { body: {} })).toContain('[coding cancelled by the user]');
  });

  it("a fork walking back into its parent's turn continues none of the parent's delegations: they stay the parent's to resume", async () => {
    await interruptedTurn();
    asIfKilled('turn-1');
    w.fake.script('director', say('forked answer'));
    const f1 = await runTask(w.rt, { ...w.base, prompt: 'forked question', taskId: 'f1', yolo: true, session: { resume: 'turn-1', fork: true } });
    asIfKilled('f1');
    writeFileSync(f1.rolloutPath, `${readFileSync(f1.rolloutPath, 'utf8').split('\n')[0] ?? ''}\n`); // its header alone
    w.fake.script('director', say('fork answer'));
    const f2 = await runTask(w.rt, { ...w.base, prompt: 'fork again', taskId: 'f2', yolo: true, session: { resume: 'f1' } });
    expect(f2.text).toBe('fork answer');
    expect(text(w.fake.requestsFor('director').at(-1) ?? { body: {} })).toContain('do the work');
    expect(w.fake.requestsFor('coding')).toHaveLength(2); // not continued by the fork
    w.fake.script('coding', exit('side effect done once'));
    w.fake.script('director', say('all done'));
    const r = await runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.text).toBe('all done');
    expect(w.fake.requestsFor('coding')).toHaveLength(3); // the parent continues it, once
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
  });

  it('B: an interrupted Coding delegation continues from its rollout; the recorded tool call is not run again', async () => {
    await interruptedTurn();
    asIfKilled('turn-1');
    const side = join(w.base.workspace, 'side.txt');
    expect(readFileSync(side, 'utf8')).toBe('ran\n');
    w.fake.script('coding', exit('side effect done once'));
    w.fake.script('director', say('all done'));
    const r = await runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.stopReason).toBe('plain_text');
    expect(r.text).toBe('all done');
    expect(readFileSync(side, 'utf8')).toBe('ran\n'); // not re-executed
    const resumedCoding = w.fake.requestsFor('coding')[2];
    expect(text(resumedCoding ?? { body: {} })).toContain(SIDE.replace(/"/g, '\\"'));
    const director = w.fake.requestsFor('director').at(-1);
    const body = text(director ?? { body: {} });
    expect(body).toContain('side effect done once');
    expect(body).not.toContain('was cancelled before it finished'); // last wins: the abandoned result was replaced
  });

  it("a recovered turn's rollout replays to its conversation: the earlier turns, the recovered result right after its call, the prompt", async () => {
    await interruptedTurn();
    asIfKilled('turn-1');
    w.fake.script('coding', exit('side effect done once'));
    w.fake.script('director', say('all done'));
    const r = await runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.text).toBe('all done');
    const replay = await w.rt.connect<StoreApi>(STORE_ACTOR).readReplay(r.rolloutPath);
    if (!replay.ok) throw new Error(`no replay: ${replay.reason}`);
    const ms = replay.messages;
    // written before recovery, the earlier turn; the recovered result lands right after its call (compacted record)
    expect(ms[1]).toEqual({ role: 'user', content: 'do the work' });
    expect(pairsIntact(ms)).toBe(true);
    const results = ms.filter((m) => m.role === 'tool' && m.content.includes('side effect done once'));
    expect(results).toHaveLength(1);
    expect(ms.slice(-2)).toEqual([{ role: 'user', content: 'please continue' }, expect.objectContaining({ role: 'assistant', content: 'all done' })]);
  });

  it('a resumed turn killed before its Director recorded anything: the next turn continues the delegation from the newest rollout it left', async () => {
    await interruptedTurn();
    asIfKilled('turn-1');
    // turn 2 continues the delegation, which runs one more command and stalls; then the process "dies"
    w.fake.script('coding', call('run_bash', { command: 'echo two >> two.txt', is_dangerous: false }), { text: 'x', fault: { kind: 'stall', afterEvents: 1 } });
    const ctl = new AbortController();
    const running = runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, signal: ctl.signal, session: { resume: 'turn-1' } }).catch((e: Error) => e);
    await until(() => w.fake.requestsFor('coding').length >= 4, "the continued Coding's second model call");
    ctl.abort(new Error('cancelled by the test'));
    await running;
    asIfKilled('turn-2');
    const store = w.rt.connect<StoreApi>(STORE_ACTOR);
    const director2 = (await store.taskRollouts(projectIdFor(w.base.workspace), 'turn-2')).find((h) => h.meta.delegationId === null)?.path ?? '';
    writeFileSync(director2, `${readFileSync(director2, 'utf8').split('\n')[0] ?? ''}\n`); // its header alone
    w.fake.script('coding', exit('side effect done once'));
    w.fake.script('director', say('all done'));
    const r = await runTask(w.rt, { ...w.base, prompt: 'go on', taskId: 'turn-3', yolo: true, session: { resume: 'turn-1' } });
    expect(r.text).toBe('all done');
    expect(text(w.fake.requestsFor('coding')[4] ?? { body: {} })).toContain('echo two'); // from turn 2's Coding rollout
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
    expect(readFileSync(join(w.base.workspace, 'two.txt'), 'utf8')).toBe('two\n');
    const body = text(w.fake.requestsFor('director').at(-1) ?? { body: {} });
    expect(body).toContain('do the work');
    expect(body).toContain('side effect done once');
  });

  it("a delegation's newest rollout holding no message (killed before its first records) is passed over: the one before it continues", async () => {
    await interruptedTurn();
    asIfKilled('turn-1');
    const store = w.rt.connect<StoreApi>(STORE_ACTOR);
    const head = JSON.parse(readFileSync(codingRollout(), 'utf8').split('\n')[0] ?? '{}') as { payload: SessionMeta };
    const { git: _git, ...meta } = head.payload;
    const empty = await store.openRollout({ ...meta, sessionId: 'killed-at-its-start' }, { agentSuffix: true });
    await store.drain(empty.path);
    w.fake.script('coding', exit('side effect done once'));
    w.fake.script('director', say('all done'));
    const r = await runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.text).toBe('all done');
    expect(text(w.fake.requestsFor('coding')[2] ?? { body: {} })).toContain(SIDE.replace(/"/g, '\\"')); // replayed, not degraded
    expect(text(w.fake.requestsFor('director').at(-1) ?? { body: {} })).toContain('side effect done once');
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
  });

  it('a provider that numbers calls per answer (every call id the same): the interrupted delegation is continued once, from its own rollout', async () => {
    // two delegations in one turn under one call id: the first finished, the second ran its side effect and was killed
    const same = (name: string, args: Record<string, unknown>) => ({ text: THOUGHT, toolCalls: [{ id: 'call_0', name, arguments: JSON.stringify(args) }] });
    w.fake.script('director', same('delegate_coding', { task: 'look first', context_refs: [] }), same('delegate_coding', { task: 'run the side effect, then finish', context_refs: [] }));
    w.fake.script('coding', { ...exit('looked'), toolCalls: [{ id: 'call_0', name: 'agent_exit', arguments: JSON.stringify({ conclusion: 'looked', status: 'ok', facts: [], artifacts: [] }) }] }, same('run_bash', { command: SIDE, is_dangerous: false }), { text: 'x', fault: { kind: 'stall', afterEvents: 1 } });
    const ctl = new AbortController();
    const running = runTask(w.rt, { ...w.base, prompt: 'do the work', taskId: 'turn-1', yolo: true, signal: ctl.signal }).catch((e: Error) => e);
    await until(() => w.fake.requestsFor('coding').length >= 3, "the second delegation's second model call");
    ctl.abort(new Error('cancelled by the test'));
    await running;
    asIfKilled('turn-1');
    w.fake.script('coding', exit('side effect done once'));
    w.fake.script('director', say('all done'));
    const r = await runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.text).toBe('all done');
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
    // one continuation (a second one would replay the same rollout and repeat whatever the first did), of the killed run
    expect(w.fake.requestsFor('coding')).toHaveLength(4);
    expect(text(w.fake.requestsFor('coding')[3] ?? { body: {} })).toContain(SIDE);
  });

  it('C: a commit since the checkpoint gives the degraded report with what changed, not a replay', async () => {
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'one');
    const before = git('rev-parse', 'HEAD');
    await interruptedTurn();
    asIfKilled('turn-1');
    await checkpointed();
    expect(readFileSync(codingRollout(), 'utf8')).toContain(`"head":"${before}","branch":"main"`);
    git('commit', '-q', '--allow-empty', '-m', 'two'); // the user moved on while the session was stopped
    w.fake.script('director', ...Array.from({ length: 4 }, () => say('finished after the report')));
    const r = await runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.stopReason).toBe('plain_text');
    expect(w.fake.requestsFor('coding')).toHaveLength(2); // no replay ran
    const body = text(w.fake.requestsFor('director').at(-1) ?? { body: {} });
    expect(body).toContain(`the workspace changed since its checkpoint (HEAD moved from ${before.slice(0, 12)} to ${git('rev-parse', 'HEAD').slice(0, 12)})`);
    expect(r.notes.some((n) => n.handoff.status === 'degraded')).toBe(true);
  });

  it('degrade_on_workspace_change = false: a delegation is replayed (B) onto the changed workspace', async () => {
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'one');
    await interruptedTurn();
    asIfKilled('turn-1');
    await checkpointed();
    git('checkout', '-q', '-b', 'elsewhere'); // the branch changed
    w.fake.script('coding', exit('side effect done once'));
    w.fake.script('director', say('all done'));
    const config = { ...w.base.config, resume: { ...w.base.config.resume, degradeOnWorkspaceChange: false } };
    const r = await runTask(w.rt, { ...w.base, config, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.text).toBe('all done');
    expect(w.fake.requestsFor('coding')).toHaveLength(3); // replayed
  });

  it('C: a corrupted checkpoint gives a degraded note and the task still finishes', async () => {
    await interruptedTurn();
    asIfKilled('turn-1');
    const path = codingRollout();
    // the cancelled child writes its stop and checkpoint on its way out (the stop hook waits for the run)
    await until(() => readFileSync(path, 'utf8').includes('"agent_checkpoint"'), "the cancelled Coding run's checkpoint");
    const lines = readFileSync(path, 'utf8').split('\n');
    const cp = lines.findIndex((l) => l.includes('"agent_checkpoint"'));
    expect(cp).toBeGreaterThan(0);
    lines[cp] = lines[cp]?.replace(/"fingerprint":"[0-9a-f]+"/, '"fingerprint":"0000"') ?? '';
    writeFileSync(path, lines.join('\n'));
    w.fake.script('director', say('finished after the report'));
    const r = await runTask(w.rt, { ...w.base, prompt: 'please continue', taskId: 'turn-2', yolo: true, session: { resume: 'turn-1' } });
    expect(r.stopReason).toBe('plain_text');
    expect(w.fake.requestsFor('coding')).toHaveLength(2); // no replay ran
    const body = text(w.fake.requestsFor('director').at(-1) ?? { body: {} });
    expect(body).toContain('degraded');
    expect(body).toContain('run_bash ×1');
    expect(r.notes.some((n) => n.handoff.status === 'degraded')).toBe(true);
    expect(existsSync(path)).toBe(true);
  });

  /** Coding runs the side effect, then its next model call stalls; its worker then dies under it: `terminate()`,
   *  with no stop message, ends it as an uncaught throw or an OOM does (no stop hook, no stop record, no checkpoint:
   *  the ledger holds only what reached the store), and the Director's spawn fails with a crash, not a cancel. */
  async function crashingRun(maxRestarts: number, beforeCrash?: () => Promise<void>): Promise<TaskResult> {
    w.fake.script('director', call('delegate_coding', { task: 'run the side effect, then finish', context_refs: [] }), say('done after the crash'));
    w.fake.script('coding', call('run_bash', { command: SIDE, is_dangerous: false }), { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }, exit('finished after a restart'));
    const config = { ...w.base.config, resume: { ...w.base.config.resume, maxRestarts } };
    const running = runTask(w.rt, { ...w.base, config, prompt: 'do the work', taskId: 'crash', yolo: true });
    await until(() => w.fake.requestsFor('coding').length >= 2, "Coding's second model call");
    const name = w.rt.liveActors().find((n) => /^delegation:.*:coding$/.test(n));
    expect(name).toBeDefined();
    const handle = w.rt.task('crash')?.supervisor.handleOf(name ?? '') as { worker?: Worker } | undefined;
    expect(handle?.worker).toBeDefined();
    await beforeCrash?.();
    await handle?.worker?.terminate();
    return running;
  }

  it('a crashed delegation actor is restarted, continues from its rollout (B) and finishes; the restart is an event', async () => {
    const r = await crashingRun(2);
    expect(r.stopReason).toBe('plain_text');
    expect(r.text).toBe('done after the crash');
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
    expect(w.fake.requestsFor('coding')).toHaveLength(3);
    const restarted = w.envelopes.filter((e) => e.payload.type === 'delegation_restarted');
    expect(restarted).toHaveLength(1);
    expect(restarted[0]?.payload).toMatchObject({ child: 'coding', attempt: 1, maxRestarts: 2, reason: expect.stringMatching(/ACTOR_CRASHED/) });
    // the crashed run left no checkpoint: B replayed the rollout as the store had it
    const first = readFileSync(codingRollout(), 'utf8');
    expect(first).not.toContain('"agent_checkpoint"');
    expect(text(w.fake.requestsFor('director').at(-1) ?? { body: {} })).toContain('finished after a restart');
  });

  it('a crashed delegation whose newest rollout holds nothing (a restart killed before its first records) continues from the one before it (B)', async () => {
    const r = await crashingRun(2, async () => {
      // what an incarnation leaves that opened its rollout and died before its first records were on disk
      const store = w.rt.connect<StoreApi>(STORE_ACTOR);
      const { git: _git, ...meta } = (JSON.parse(readFileSync(codingRollout(), 'utf8').split('\n')[0] ?? '{}') as { payload: SessionMeta }).payload;
      const empty = await store.openRollout({ ...meta, sessionId: 'restarted-then-killed' }, { agentSuffix: true });
      await store.drain(empty.path);
    });
    expect(r.text).toBe('done after the crash');
    expect(r.notes.some((n) => n.handoff.status === 'degraded')).toBe(false);
    expect(w.fake.requestsFor('coding')).toHaveLength(3); // replayed from the rollout that holds the work
    expect(text(w.fake.requestsFor('coding')[2] ?? { body: {} })).toContain(SIDE);
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
    expect(text(w.fake.requestsFor('director').at(-1) ?? { body: {} })).toContain('finished after a restart');
  });

  it('past max_restarts the Director gets the degraded report (C), never silence', async () => {
    const r = await crashingRun(0);
    expect(r.stopReason).toBe('plain_text');
    expect(w.fake.requestsFor('coding')).toHaveLength(2);
    const body = text(w.fake.requestsFor('director').at(-1) ?? { body: {} });
    expect(body).toContain('max_restarts = 0');
    expect(body).toContain('run_bash ×1');
    expect(w.envelopes.some((e) => e.payload.type === 'delegation_restarted')).toBe(false);
  });

  it('a killed delegation returned no usage: its calls are counted from what its rollout recorded', async () => {
    const u = (input: number, output: number) => ({ usage: { input, output } });
    w.fake.script('director', { ...call('delegate_coding', { task: 'run the side effect, then finish', context_refs: [] }), ...u(1000, 10) }, { ...say('done after the crash'), ...u(1000, 10) });
    // the killed incarnation answered one call (200/20) and stalled on the next; the restarted one exits (30/3)
    w.fake.script('coding', { ...call('run_bash', { command: SIDE, is_dangerous: false }), ...u(200, 20) }, { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }, { ...exit('finished after a restart'), ...u(30, 3) });
    const running = runTask(w.rt, { ...w.base, prompt: 'do the work', taskId: 'crash', yolo: true });
    await until(() => w.fake.requestsFor('coding').length >= 2, "Coding's second model call");
    const name = w.rt.liveActors().find((n) => /^delegation:.*:coding$/.test(n)) ?? '';
    await (w.rt.task('crash')?.supervisor.handleOf(name) as { worker?: Worker } | undefined)?.worker?.terminate();
    const r = await running;
    expect(r.stopReason).toBe('plain_text');
    const by = Object.fromEntries(r.usageByAgent.map((e) => [e.agent, [e.calls, e.usage.inputTokens, e.usage.outputTokens]]));
    expect(by).toEqual({ director: [2, 2000, 20], coding: [2, 230, 23] });
  });
});
