// `yagent undo`: the workspace's undo points, and the restore of one (through the store actor: the data root's writer).
import { createInterface } from 'node:readline/promises';
import { Runtime } from '../../src/runtime/runtime.js';
import { setupState } from '../../src/runtime/config/setup-state.js';
import type { StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR, STORE_MODULE, storeInputFromConfig } from '../../src/store/client.js';
import { STORE_PRELOAD, THREADS } from '../host/boot-plan.js';
import { ConfigExit, EXIT, type ExitCode } from './exit-codes.js';
import type { Streams } from './output.js';
import { describeRestore, undoJson, undoTable } from './undo-format.js';

export interface UndoCommand {
  flags: { config: string | undefined };
  id: string | undefined;
  json: boolean;
  yes: boolean;
  dryRun: boolean;
}

async function withStore<T>(configPath: string | undefined, fn: (store: StoreApi) => Promise<T>): Promise<T> {
  const st = await setupState({ configPath });
  if (st.state === 'broken') throw new ConfigExit(st.error.lines());
  const runtime = await Runtime.start({ hasResponder: false, spares: 0, threads: THREADS });
  try {
    await runtime.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: storeInputFromConfig(st.config), restart: 'permanent', preload: STORE_PRELOAD });
    return await fn(runtime.connect<StoreApi>(STORE_ACTOR));
  } finally {
    await runtime.shutdown();
  }
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function runUndo(workspace: string, cmd: UndoCommand, io: Streams, canAsk: boolean): Promise<ExitCode> {
  const id = cmd.id;
  if (id === undefined) {
    const items = await withStore(cmd.flags.config, (s) => s.undoList(workspace));
    io.stdout(cmd.json ? items.map((e) => `${undoJson(e)}\n`).join('') : undoTable(items));
    return EXIT.ok;
  }
  if (!cmd.dryRun && !cmd.yes && !canAsk) {
    io.stderr('yagent: undo changes files in the workspace: pass --yes (or --dry-run to see the diff) when not on a terminal\n');
    return EXIT.error;
  }
  return withStore(cmd.flags.config, async (store) => {
    if (!cmd.dryRun && !cmd.yes) {
      const plan = await store.undoRestore(workspace, id, { dryRun: true });
      io.stderr(describeRestore(plan));
      if (!plan.ok) return EXIT.error;
      if (!(await confirm(`undo ${plan.id}? [y/N] `))) {
        io.stderr('nothing changed\n');
        return EXIT.ok;
      }
    }
    const r = await store.undoRestore(workspace, id, { dryRun: cmd.dryRun });
    if (cmd.json) io.stdout(`${JSON.stringify(r)}\n`);
    else if (r.ok) io.stdout(describeRestore(r));
    if (!r.ok) io.stderr(`yagent: ${describeRestore(r)}`);
    return r.ok ? EXIT.ok : EXIT.error;
  });
}
