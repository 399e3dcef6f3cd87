// Opens an in-process Host for one client command (config, optional scripted model) and always closes it.
// before the config parse: not in main.ts, where loading zod would delay the workers' prestart by ~25 ms
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { defaultConfigPath } from '../../src/runtime/config/loader.js';
import { CONFIG_TEMPLATE } from '../../src/runtime/config/template.js';
import type { Streams } from '../cli/output.js';
import { LocalHost } from './local-host.js';
import { loadRunConfig, printConfigWarnings } from './run-config.js';
import { sandboxNotice } from '../../src/actors/tools/sandbox-probe.js';
import type { ModelScript } from './scripted-model.js';
import { makeTempDir, type TempDir } from './temp-dir.js';
import { trace } from './trace.js';
import type { Host } from './types.js';
import { noticeFirst } from './notice-first.js';

export interface SessionOptions {
  configPath: string | undefined;
  io: Streams;
  /** serve: clients can answer approvals, so help requests wait for them. */
  canAsk?: boolean;
  /** The demo's script; otherwise YAGENT_FAKE_SCRIPT names a script module (tests, benchmarks). */
  script?: ModelScript;
  /** 'template' = ignore the user's config (the demo must run even on a broken one). */
  baseConfig?: 'user' | 'template';
  /** `--verbose`: warn and error log lines are mirrored to stderr. */
  verbose?: boolean;
  /** The TUI draws in this process: agent, store and MCP workers run below the main thread (boot-plan `SCREEN_NICE`). */
  screen?: boolean;
  /** `-p`: the task starts before the sandbox probe answers; its events and its end wait for the notice line. */
  startBeforeNotice?: boolean;
}

export async function withLocalHost<T>(opts: SessionOptions, fn: (host: Host) => Promise<T>): Promise<T> {
  const scriptPath = process.env.YAGENT_FAKE_SCRIPT;
  // the scripted model (a loopback HTTP server) loads only for a script: a real provider's run never reads it
  const scripted = opts.script !== undefined || scriptPath ? await import('./scripted-model.js') : undefined;
  const script = opts.script ?? (scriptPath && scripted ? await scripted.loadScriptModule(scriptPath) : undefined);
  let configPath = opts.configPath;
  let fake: FakeProvider | undefined;
  let tmp: TempDir | undefined;
  try {
    if (script !== undefined && scripted) {
      let base = CONFIG_TEMPLATE;
      if (opts.baseConfig !== 'template') {
        await loadRunConfig(configPath, true); // a broken user config is still exit 2 under a scripted model
        base = readFileSync(configPath ?? defaultConfigPath(), 'utf8');
      }
      fake = await scripted.startScriptedModel(script);
      tmp = makeTempDir('yagent-scripted-');
      configPath = join(tmp.path, 'config.toml');
      writeFileSync(configPath, scripted.scriptedConfigText(base, fake), { mode: 0o600 });
    }
    const config = await loadRunConfig(configPath, false);
    printConfigWarnings(config, opts.io);
    trace('config loaded');
    // the sandbox probe (one short bwrap run): its one line comes before the task's first output
    const probe = (): Promise<void> => {
      trace('sandbox probe: started');
      return sandboxNotice(config.security.sandbox, process.env).then((line) => void (line !== null && opts.io.stderr(`${line}\n`)), () => undefined);
    };
    // -p: probed once the task has started (its spawn is ~5-10 ms of this thread's CPU the Director's start message
    // would wait for); otherwise while the runtime starts, and before any client sees the host
    const printed = opts.startBeforeNotice === true ? undefined : probe();
    const host = await LocalHost.start({ config, configPath, canAsk: opts.canAsk ?? false, stderr: opts.io.stderr, verbose: opts.verbose, screen: opts.screen });
    trace('runtime started (Director spare booting; the store once it is ready)');
    // test-only crash injection: exists only with the scripted model (the loopback fake), never with a real provider
    if (fake) fake.onCrashWorker = (agent) => host.crashActors(agent);
    if (printed !== undefined) await printed;
    try {
      return await fn(printed === undefined ? noticeFirst(host, probe) : host);
    } finally {
      trace('client done; shutting down');
      await host.shutdown();
      trace('shut down');
    }
  } finally {
    await fake?.close();
    tmp?.remove();
    trace('scripted model closed');
  }
}
