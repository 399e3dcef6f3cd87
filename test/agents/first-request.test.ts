// A run's first model request waits for no store answer: the rollout's opening is pipelined (appends queue behind
// it) and a new task's Director asks for no note index; a failed opening still fails the run, in the store's words.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import type { AgentRunInput } from '../../src/actors/agents/run-types.js';
import { StoreError } from '../../src/store/errors.js';
import { makeHarness, ScriptedModel, THOUGHT, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.store.shutdown();
  h = undefined;
});

const directorInput = (hh: Harness, extra: Partial<AgentRunInput> = {}): AgentRunInput => ({
  agent: 'director',
  role: 'director',
  brief: 'look',
  settings: hh.settings,
  delegationId: null,
  parentSessionId: null,
  ...extra,
});

describe('the first model request', () => {
  it('leaves while the store has not answered the rollout opening; the rollout is whole once it does', async () => {
    h = makeHarness();
    const hh = h;
    let release = (): void => undefined;
    const held = new Promise<void>((r) => (release = r));
    let answered = false;
    const open = hh.store.openRollout.bind(hh.store);
    // the real store opens the file; only its answer is held until the model has been asked
    hh.store.openRollout = async (...a) => {
      const handle = await open(...a);
      await held;
      answered = true;
      return handle;
    };
    const seen: boolean[] = [];
    const model = new ScriptedModel({
      director: [
        () => {
          seen.push(answered);
          release();
          return { text: `${THOUGHT}\nread it`, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] };
        },
        () => (seen.push(answered), { text: 'done' }),
      ],
    });
    const out = await runAgent(hh.env(model), directorInput(hh, { freshBoard: true }));
    expect(seen[0]).toBe(false);
    expect(answered).toBe(true);
    expect(out.stopReason).toBe('plain_text');
    const types = readFileSync(out.rolloutPath, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types[0]).toBe('session_meta');
    expect(types.filter((t) => t === 'turn_context')).toHaveLength(model.requests.length); // one per request: none lost
  });

  it("a new task's Director asks for no note index before its first request; later steps and other runs do", async () => {
    h = makeHarness();
    const hh = h;
    const asked: number[] = [];
    const index = hh.store.buildIndex.bind(hh.store);
    let requests = 0;
    hh.store.buildIndex = (...a) => (asked.push(requests), index(...a));
    const script = () => [
      () => (requests++, { text: `${THOUGHT}\nread it`, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }),
      () => (requests++, { text: 'done' }),
    ];
    await runAgent(hh.env(new ScriptedModel({ director: script() })), directorInput(hh, { freshBoard: true }));
    expect(asked.length).toBeGreaterThan(0); // later steps ask
    expect(asked.filter((n) => n === 0)).toEqual([]); // none before the first request
    asked.length = 0;
    requests = 0;
    await runAgent(hh.env(new ScriptedModel({ director: script() })), directorInput(hh));
    expect(asked[0]).toBe(0); // a board that may hold notes: asked before the first request too
  });

  it('a rollout the store cannot open stops the run (its call is cancelled) and fails it with the store error', async () => {
    h = makeHarness();
    const hh = h;
    hh.store.openRollout = () => Promise.reject(new StoreError('BAD_PATH', 'rollout directory not writable'));
    const model = new ScriptedModel({ director: [{ stall: true }] });
    await expect(runAgent(hh.env(model), directorInput(hh, { freshBoard: true }))).rejects.toThrow('rollout directory not writable');
    expect(model.requests.length).toBeLessThanOrEqual(1);
  });

  it("a pre-sent Director's first call leaves the blueprint out (else its bytes could not be claimed); the next call has it", async () => {
    h = makeHarness();
    const hh = h;
    const run = async (presentFirst: boolean): Promise<boolean[]> => {
      const model = new ScriptedModel({
        director: [() => ({ text: `${THOUGHT}\nread it`, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }), () => ({ text: 'done' })],
      });
      const env = hh.env(model);
      // a blueprint that is ready at once: without a pre-sent request the first call carries it
      const bp = { injection: () => Promise.resolve([{ role: 'user' as const, content: 'BLUEPRINT-MARK' }]) };
      const out = await runAgent({ ...env, blueprint: bp as unknown as NonNullable<typeof env.blueprint>, firstRequestPresent: () => presentFirst }, directorInput(hh, { freshBoard: true }));
      expect(out.stopReason).toBe('plain_text');
      return model.requests.slice(0, 2).map((r) => JSON.stringify(r.messages).includes('BLUEPRINT-MARK'));
    };
    expect(await run(false)).toEqual([true, true]);
    expect(await run(true)).toEqual([false, true]);
  });
});
