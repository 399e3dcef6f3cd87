// End-to-end: only the model is scripted (loopback fake provider, per agent identity); runtime workers,
// dispatcher, store actor, tool guard, notes and rollout files are real.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import { loadConfig } from '../../src/runtime/config/index.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../../src/actors/llm/fake/script.js';
import { runTask, type RunTaskOptions } from '../../src/actors/agents/run-task.js';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';

const THOUGHT = '<thought>\ngoal: g\nstep: s\nreason: r\nplan:\n[>] s\n</thought>';
let n = 0;
const call = (name: string, args: Record<string, unknown>): FakeReply => ({ text: THOUGHT, toolCalls: [{ id: `c${++n}`, name, arguments: JSON.stringify(args) }] });
const exit = (conclusion: string): FakeReply => call('agent_exit', { conclusion, status: 'ok', facts: [], artifacts: [] });
const lastToolText = (req: RecordedRequest): string => {
  const msgs = (req.body.messages ?? []) as { role: string; content: unknown }[];
  const t = msgs.filter((m) => m.role === 'tool').at(-1);
  return typeof t?.content === 'string' ? t.content : JSON.stringify(t?.content ?? '');
};

const root = mkdtempSync(join(tmpdir(), 'yagent-e2e-'));
let fake: FakeProvider;
let rt: Runtime;
let base: Omit<RunTaskOptions, 'prompt'>;
let idleBase: Pick<RunTaskOptions, 'config' | 'configPath'>;
const envelopes: Envelope[] = [];

beforeAll(async () => {
  expect(existsSync(resolve('dist', AGENT_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
  fake = await FakeProvider.start();
  const home = join(root, 'home');
  process.env.YAGENT_HOME = home;
  process.env.YAGENT_NOTES_ROOT = join(home, 'notes');
  // a generous idle timeout keeps a loaded CI machine from timing out healthy delegations; the idle-timeout
  // test gets its own short one
  const configText = (idle: string): string =>
    `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\nmodel = "fake-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n[agent]\ndelegate_idle_timeout = "${idle}"\nmax_parallel_delegations = 2\n`;
  const configPath = join(root, 'config.toml');
  writeFileSync(configPath, configText('30s'));
  const { config } = await loadConfig({ configPath });
  const idleConfigPath = join(root, 'config-idle.toml');
  writeFileSync(idleConfigPath, configText('1500ms'));
  idleBase = { config: (await loadConfig({ configPath: idleConfigPath })).config, configPath: idleConfigPath };
  rt = await Runtime.start({ hasResponder: true });
  await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: home, notesRoot: join(home, 'notes') } });
  rt.dispatcher.consume({ name: 'e2e-test' }, (env) => {
    envelopes.push(env);
    if (env.payload.type === 'user_help_needed') rt.respondUserHelp({ requestId: env.payload.requestId, approved: true, scope: 'once' });
  });
  base = { workspace: join(root, 'ws'), config, configPath };
  mkdirSync(base.workspace, { recursive: true });
  writeFileSync(join(base.workspace, 'hello.txt'), 'hello world\n');
}, 60_000);

afterAll(async () => {
  await rt?.shutdown();
  await fake?.close();
});

describe('agents end to end (real workers, store, guard; scripted model)', () => {
  it('authorization loop: a write outside the workspace asks the user, the approval lets it run', async () => {
    const outside = join(root, 'outside.txt');
    fake.script('director', call('delegate_coding', { task: 'write outside.txt', context_refs: [] }), { text: 'written' });
    fake.script('coding', call('create_file', { path: outside, content: 'approved\n' }), exit('created outside.txt'));
    const r = await runTask(rt, { ...base, prompt: 'write it', taskId: 'auth-loop' });
    expect(r.stopReason).toBe('plain_text');
    expect(readFileSync(outside, 'utf8')).toBe('approved\n');
    const asked = envelopes.filter((e) => e.taskId === 'auth-loop' && e.payload.type === 'user_help_needed');
    expect(asked).toHaveLength(1);
    expect(asked[0].delegationId).not.toBeNull();
  });

  it('handoff across two delegations through notes; child rollouts carry the _agent suffix', async () => {
    fake.script(
      'director',
      call('delegate_repo', { task: 'find the greeting', context_refs: [] }),
      (req) => call('delegate_coding', { task: 'change the greeting', context_refs: [/note ([^\s\]]+)\]/.exec(lastToolText(req))?.[1] ?? 'none'] }),
      { text: 'greeting changed' },
    );
    fake.script('repo', call('read_file', { path: 'hello.txt' }), exit('greeting is in hello.txt line 1'));
    fake.script('coding', (req) => exit(`saw repo note: ${JSON.stringify(req.body.messages).includes('greeting is in hello.txt line 1')}`));
    const r = await runTask(rt, { ...base, prompt: 'change greeting', taskId: 'handoff' });
    expect(r.text).toBe('greeting changed');
    expect(r.notes.map((x) => x.agent).sort()).toEqual(['coding', 'repo']);
    expect(r.notes.find((x) => x.agent === 'coding')?.handoff.conclusion).toBe('saw repo note: true');
    const dir = dirname(r.rolloutPath);
    const children = readdirSync(dir).filter((f) => /_(repo|coding)\.jsonl$/.test(f));
    expect(children.length).toBeGreaterThanOrEqual(2);
    const repoMeta = JSON.parse(readFileSync(join(dir, children.find((f) => f.endsWith('_repo.jsonl')) ?? ''), 'utf8').split('\n')[0]) as { payload: { parentSessionId: string } };
    expect(repoMeta.payload.parentSessionId).toBe(r.sessionId);
    expect(readFileSync(r.rolloutPath, 'utf8')).toContain('"stopReason":"plain_text"');
  });

  it('delegation lifecycle: parallel read-only delegations, an idle timeout, the task goes on', async () => {
    fake.script(
      'director',
      { text: THOUGHT, toolCalls: [{ id: 'p1', name: 'delegate_repo', arguments: '{"task":"a"}' }, { id: 'p2', name: 'delegate_chat', arguments: '{"task":"b"}' }] },
      call('delegate_devops', { task: 'hang', context_refs: [] }),
      { text: 'finished despite the hang' },
    );
    fake.script('repo', exit('repo a'));
    fake.script('chat', { text: 'chat b' });
    fake.script('devops', { fault: { kind: 'stall', afterEvents: 1 } });
    const r = await runTask(rt, { ...base, ...idleBase, prompt: 'go', taskId: 'lifecycle' });
    expect(r.text).toBe('finished despite the hang');
    const names = envelopes.filter((e) => e.taskId === 'lifecycle' && e.payload.type === 'delegation_start').map((e) => e.payload.type === 'delegation_start' && e.payload.callId);
    expect(names).toEqual(expect.arrayContaining(['p1', 'p2']));
    const devops = r.notes.find((x) => x.agent === 'devops');
    expect(devops?.handoff.status).toBe('error');
    expect(devops?.handoff.conclusion).toContain('idle_timeout');
  }, 30_000);

  it('a sub-agent worker killed mid-tool gives the Director an error result and the task goes on', async () => {
    fake.script('director', call('delegate_devops', { task: 'run something slow', context_refs: [] }), (req) => ({ text: `after crash: ${lastToolText(req).includes('delegation_failed')}` }));
    fake.script('devops', call('run_bash', { command: 'sleep 20', is_dangerous: false }));
    const killed = new Promise<void>((done) => {
      rt.dispatcher.consume({ name: 'killer', filter: { taskId: 'crash' } }, async (env) => {
        if (env.payload.type === 'tool_call_start' && env.payload.name === 'run_bash') {
          const task = rt.task('crash');
          const child = task?.supervisor.snapshot().children.find((c) => c.name.includes(':devops'));
          if (child) await task?.supervisor.terminateChild(child.name, 'crash');
          done();
        }
      });
    });
    const r = await runTask(rt, { ...base, prompt: 'go', taskId: 'crash' });
    await killed;
    expect(r.text).toBe('after crash: true');
    expect(r.notes.find((x) => x.agent === 'devops')?.handoff.status).toBe('error');
  }, 30_000);

  it('runTask publishes exactly one task_end on every path: return (-d all end to end), throw, cancel', async () => {
    const ends = (id: string): string[] => envelopes.filter((e) => e.taskId === id && e.payload.type === 'task_end').map((e) => (e.payload.type === 'task_end' ? e.payload.stopReason : ''));
    fake.script('director', (req) => ({ text: `delegation tools offered: ${JSON.stringify(req.body.tools ?? []).includes('delegate_')}` }));
    const r = await runTask(rt, { ...base, prompt: 'hi', taskId: 'end-ok', disabledAgents: ['all'] });
    expect(r).toMatchObject({ stopReason: 'plain_text', text: 'delegation tools offered: false' });
    await expect(runTask(rt, { ...base, prompt: 'hi', taskId: 'end-throw', disabledAgents: ['nobody'] })).rejects.toThrow(/unknown agent "nobody"/);
    const ctl = new AbortController();
    const before = fake.requestsFor('director').length;
    fake.script('director', { fault: { kind: 'stall', afterEvents: 1 } });
    const cancelled = runTask(rt, { ...base, prompt: 'hang', taskId: 'end-cancel', signal: ctl.signal }).then((x) => x.stopReason, () => 'threw');
    await vi.waitFor(() => expect(fake.requestsFor('director').length).toBeGreaterThan(before), { timeout: 20_000 });
    ctl.abort();
    expect(['cancelled', 'threw']).toContain(await cancelled);
    await vi.waitFor(() => expect(ends('end-cancel')).toHaveLength(1), { timeout: 20_000 }); // the default is 1 s
    expect(ends('end-ok')).toEqual(['plain_text']);
    expect(ends('end-throw')).toEqual(['panic']);
    expect(ends('end-cancel')).toEqual(['cancelled']);
  }, 30_000);

  it('Meta designs a custom agent that runs at once; a mention in its note is routed with triggered_by', async () => {
    const design = { name: 'greeter_checker', description: 'Checks greetings.', system_prompt: 'Read hello.txt and report the greeting; finish with agent_exit.', tools: ['read_file'] };
    fake.script(
      'director',
      call('delegate_meta', { task: 'a greeting checker', context_refs: [] }),
      (req) => {
        const msgs = JSON.stringify(req.body.messages);
        const ref = /@coding ← note (\S+) /.exec(msgs)?.[1] ?? 'none';
        return call('delegate_coding', { task: 'do what the checker asks', context_refs: [ref] });
      },
      { text: 'all done' },
    );
    fake.script('meta', { text: 'not json' }, { text: JSON.stringify(design) });
    fake.script('greeter_checker', call('read_file', { path: 'hello.txt' }), exit('The greeting is "hello world". @coding please capitalise it.'));
    fake.script('coding', exit('capitalised'));
    const r = await runTask(rt, { ...base, prompt: 'check greeting', taskId: 'meta-mention' });
    expect(r.text).toBe('all done');
    const checker = r.notes.find((x) => x.agent === 'greeter_checker');
    expect(checker?.handoff.mentions).toEqual(['coding']);
    expect(r.notes.find((x) => x.agent === 'coding')?.handoff.triggeredBy).toBe(checker?.ref);
  }, 30_000);
});
