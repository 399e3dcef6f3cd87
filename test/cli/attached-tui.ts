// A real TUI attached to a running `yagent serve` (painted into @xterm/headless), for tests that drive a supervisor.
import type { ControlClient } from '../../bin/attach/client.js';
import { TuiApp } from '../../bin/tui/app.js';
import { attachedBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS } from '../../bin/tui/keys.js';
import { makeTerm, type Term } from '../tui/harness.js';
import { SERVE_WAIT_MS, until } from './helpers.js';

export interface AttachedTui {
  app: TuiApp;
  term: Term;
  /** Types `keys`, then waits until the painted screen satisfies `ok` (any screen by default) and returns it. */
  step: (keys: string, ok?: (screen: string) => boolean) => Promise<string>;
}

/** Opens the TUI on `client` for workspace `ws`; `apps` collects it for the test file's teardown. */
export function attachedTui(apps: TuiApp[], client: ControlClient, ws: string, opts: { yolo: boolean; cols: number; rows: number }): AttachedTui {
  const term = makeTerm(opts.cols, opts.rows);
  const app = new TuiApp({ backend: attachedBackend(client, ws, { yolo: opts.yolo, fullYolo: false, disabledAgents: [] }), bindings: DEFAULT_BINDINGS, io: term.io });
  apps.push(app);
  const step = async (keys: string, ok: (screen: string) => boolean = () => true): Promise<string> => {
    term.type(keys);
    return until(async () => {
      await term.settle();
      app.frames.flush();
      await term.settle();
      const screen = term.screenText();
      return ok(screen) ? screen : undefined;
    }, `the screen after ${JSON.stringify(keys)}`, SERVE_WAIT_MS);
  };
  return { app, term, step };
}
