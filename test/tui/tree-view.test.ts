// Ctrl-T: the delegation tree dialog painted into @xterm/headless; per-actor pause and cancel reach the backend.
import { afterEach, describe, expect, it } from 'vitest';
import { TuiApp } from '../../bin/tui/app.js';
import type { TuiBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS, resolveBindings } from '../../bin/tui/keys.js';
import { parseKeybindings } from '../../src/runtime/config/keybindings.js';
import type { TaskOutcome, TreeNode } from '../../bin/host/types.js';
import { makeTerm } from './harness.js';

const node = (name: string, state: string, children: TreeNode[] = [], kind = 'agent'): TreeNode => ({ name, kind, state, ageMs: 0, restarts: 0, mailboxDepth: 0, drops: 0, children });
const sup = (name: string, children: TreeNode[]): TreeNode => node(name, 'running', children, 'supervisor');
/** The runtime's shape: root → services, tasks → task:<id> → director and its delegations. */
const TREE = sup('root', [sup('services', [node('store', 'running', [], 'store')]), sup('tasks', [sup('task:t', [node('director', 'running'), node('delegation:c1:coding', 'running'), node('delegation:c2:repo', 'stopped')])])]);

function setPaused(n: TreeNode, name: string, paused: boolean): void {
  if (n.name === name) n.paused = paused;
  n.children.forEach((c) => setPaused(c, name, paused));
}

const apps: TuiApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
});

function fakeBackend(calls: string[]): TuiBackend {
  let end: (o: TaskOutcome | null) => void = () => undefined;
  return {
    where: 'local',
    start: () => Promise.resolve({ taskId: 't', done: new Promise<TaskOutcome | null>((r) => (end = r)) }),
    cancel: (id) => (calls.push(`cancel ${id}`), end(null), Promise.resolve()),
    pause: () => Promise.resolve(),
    resume: () => Promise.resolve(),
    // as the runtime does: the snapshot carries the actor's own pause
    pauseActor: (id, actor, paused) => (calls.push(`${paused ? 'pause' : 'continue'} ${id} ${actor}`), setPaused(TREE, actor, paused), Promise.resolve([actor])),
    respond: () => Promise.resolve(),
    subscribe: () => () => undefined,
    tree: () => Promise.resolve(TREE),
    timeline: () => Promise.resolve([]),
  };
}

describe('Ctrl-T delegation tree', () => {
  it('the tree action of [tui.keybindings]: a configured key opens the tree and Ctrl-T no longer does', async () => {
    const term = makeTerm(80, 24);
    const bindings = resolveBindings(parseKeybindings({ tree: 'f2' }, 'cfg.toml'));
    const app = new TuiApp({ backend: fakeBackend([]), bindings, io: term.io });
    apps.push(app);
    const step = async (keys: string): Promise<string> => {
      term.type(keys);
      await term.settle();
      await new Promise((r) => setImmediate(r));
      app.frames.flush();
      await term.settle();
      return term.screenText();
    };
    await step('go\r');
    expect(await step('\x14')).not.toContain('delegation tree');
    expect(await step('\x1bOQ')).toContain('┌─ delegation tree ─');
  });

  it('lists live actors with state; Up/Down select, p pauses/continues one actor, c cancels, Esc closes', async () => {
    const calls: string[] = [];
    const backend = fakeBackend(calls);
    const term = makeTerm(80, 24);
    const app = new TuiApp({ backend, bindings: DEFAULT_BINDINGS, io: term.io });
    apps.push(app);
    const step = async (keys: string): Promise<string> => {
      term.type(keys);
      await term.settle();
      await new Promise((r) => setImmediate(r));
      app.frames.flush();
      await term.settle();
      return term.screenText();
    };
    await step('go\r');
    let screen = await step('\x14');
    expect(screen).toContain('┌─ delegation tree ─');
    expect(screen).toContain('│   root running ');
    expect(screen).toContain('│       store running ');
    expect(screen).toContain('│ ▸       director running '); // selection starts on the first agent
    expect(screen).toContain('│         coding running ');
    expect(screen).not.toContain('repo'); // stopped actors are left out
    expect(screen).toContain('↑↓ select · p pauses director · c cancels the task · Esc closes');
    // a row p cannot act on: not offered, and pressing it does nothing
    screen = await step('\x1b[A');
    expect(screen).toContain('│ ▸     task:t running ');
    expect(screen).toContain('↑↓ select · c cancels the task · Esc closes');
    await step('p');
    expect(calls).toEqual([]);
    await step('\x1b[B');
    screen = await step('\x1b[B');
    expect(screen).toContain('│ ▸       coding running ');
    screen = await step('p');
    expect(calls).toEqual(['pause t delegation:c1:coding']);
    expect(screen).toContain('│ ▸       coding paused ');
    expect(screen).toContain('p continues coding');
    screen = await step('p');
    expect(calls.at(-1)).toBe('continue t delegation:c1:coding');
    expect(screen).toContain('│ ▸       coding running ');
    await step('c');
    expect(calls.at(-1)).toBe('cancel t');
    screen = await step('\x1b');
    expect(screen).not.toContain('delegation tree');
  });
});
