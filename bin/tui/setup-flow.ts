// /setup inside the app: probe loopback servers, ask in the dialog, and hand over to the backend the new
// configuration boots (in-process only: `TuiOptions.setup.reconfigure`).
import type { SetupHost } from './parts.js';
import { SetupDialog, type SetupResult } from './setup-dialog.js';

/** Opens the /setup dialog after probing loopback servers (as `yagent setup` does); `why` heads it. */
export function openSetup(app: SetupHost, why: string): void {
  const s = app.setupOptions;
  if (!s) return;
  app.tasks.go('tui-setup-probe', async () => {
    app.setup = new SetupDialog(await s.probe(), s.configPath, why);
    app.frames.mark();
  });
}

/** One answer typed in the input box; the last one writes the config and closes the dialog. */
export function answerSetup(app: SetupHost, dialog: SetupDialog, line: string): void {
  app.tasks.go('tui-setup', async () => {
    const result = await dialog.answer(line).catch((err: Error) => ({ ok: false, message: `setup failed: ${err.message}` }));
    if (result) await closeSetup(app, result);
    app.frames.mark();
  });
}

async function closeSetup(app: SetupHost, result: SetupResult): Promise<void> {
  app.setup = null;
  app.conv.addInfo(result.message, result.ok ? 'info' : 'error');
  if (result.ok && result.model !== undefined) app.side.model = result.model; // not `model ?` until the first call
  const s = app.setupOptions;
  if (!result.ok || !s) return;
  const next = await s.reconfigure().catch((err: Error) => (app.conv.addInfo(err.message, 'error'), null));
  if (next !== null) app.switchBackend(next);
}
