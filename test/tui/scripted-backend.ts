// A TUI backend whose turns stream what the test delivers (envelopes of task 't'); only the supervisor is replaced,
// the app, the screen and the terminal (@xterm/headless) are the real ones.
import { TuiApp, type TuiOptions } from '../../bin/tui/app.js';
import type { TuiBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS } from '../../bin/tui/keys.js';
import type { TaskOutcome, TreeNode } from '../../bin/host/types.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { makeTerm, type Term } from './harness.js';

export interface Scripted {
  app: TuiApp;
  term: Term;
  /** Publishes one event of the running turn (delegationId null = the Director's level) and paints. */
  deliver(payload: Envelope['payload'], delegationId?: string | null): void;
  /** Ends the running turn with this outcome. */
  end(outcome: TaskOutcome | null): void;
  /** What the backend was asked to do, in order ("start: …", "providers", …). */
  calls: string[];
  /** The supervision tree `tree()` answers. */
  tree: { node: TreeNode | null };
  /** Types keys and waits until the app has painted them (and any task they started). */
  step(keys: string): Promise<void>;
}

const opened: TuiApp[] = [];

/** Quits every app `scripted` opened (a test file's afterEach). */
export async function quitScripted(): Promise<void> {
  for (const app of opened.splice(0)) await app.quit();
}

export async function scripted(cols: number, rows: number, over: Partial<TuiBackend> = {}, opts: Partial<TuiOptions> = {}): Promise<Scripted> {
  let on: (env: Envelope) => void = () => undefined;
  let seq = 0;
  let finish: (o: TaskOutcome | null) => void = () => undefined;
  const calls: string[] = [];
  const tree: { node: TreeNode | null } = { node: null };
  const backend: TuiBackend = {
    where: 'local',
    start: (prompt, session, provider, model) => {
      calls.push(`start: ${prompt}${session ? ` session=${session}` : ''}${provider ? ` provider=${provider}` : ''}${model ? ` model=${model}` : ''}`);
      return Promise.resolve({ taskId: 't', done: new Promise<TaskOutcome | null>((r) => (finish = r)) });
    },
    cancel: () => Promise.resolve(finish(null)),
    pause: () => Promise.resolve(),
    resume: () => Promise.resolve(),
    pauseActor: () => Promise.resolve([]),
    respond: () => Promise.resolve(),
    subscribe: (fn) => ((on = fn), () => undefined),
    tree: () => Promise.resolve(tree.node),
    timeline: () => Promise.resolve([]),
    ...over,
  };
  const term = makeTerm(cols, rows);
  const app = new TuiApp({ backend, bindings: DEFAULT_BINDINGS, io: term.io, ...opts });
  opened.push(app);
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 2; i++) {
      for (let j = 0; j < 5; j++) await new Promise((r) => setImmediate(r));
      app.frames.flush();
      await term.settle();
    }
  };
  await settle();
  return {
    app,
    term,
    calls,
    tree,
    deliver: (payload, delegationId = null) => {
      const critical = payload.type === 'user_help_needed';
      on({ seq: ++seq, taskId: 't', delegationId, source: payload.type, type: payload.type, lane: critical ? 'critical' : 'normal', ts: 0, payload });
      app.frames.flush();
    },
    end: (o) => finish(o),
    step: async (keys) => {
      term.type(keys);
      await settle();
    },
  };
}
