// yagent CLI entry: parses the sub-command, hands off to the matching client, maps failures to exit codes.
import { readFileSync } from 'node:fs';
import { drawsScreen, parseCommand, runsLocalTasks, type Command } from './cli/args.js';
import type { Streams } from './cli/output.js';
import { subcommandUsage, usage } from './cli/usage.js';
import { CliError, ConfigExit, EXIT, formatCliError, type ExitCode } from './cli/exit-codes.js';
import type { SessionOptions } from './host/session.js';
import type { Host } from './host/types.js';
import { processGroups } from '../src/runtime/process-groups.js';
import { trace } from './host/trace.js';
import { quitOnUnhandledSignals } from './cli/signals.js';

// Last resort on every exit path (-Q, a second Ctrl-C, SIGTERM, an uncaught error): process groups the
// actors registered and the runtime has not killed yet die with the CLI (synchronous: 'exit' runs no async).
process.on('exit', () => trace(`exit hook: killed process groups [${processGroups.killAllSync().join(', ')}]`));
quitOnUnhandledSignals();

// Sub-commands load lazily: `attach` or `--version` must not pay for the runtime and the agents.
async function withLocalHost<T>(opts: SessionOptions, fn: (host: Host) => Promise<T>): Promise<T> {
  return (await import('./host/session.js')).withLocalHost(opts, fn);
}

/** Boots the Director's worker before the rest of the CLI loads (tiny module: no zod, no runtime graph). */
async function prestartDirector(cmd: Command, screen: boolean): Promise<void> {
  const plan = await import('./host/boot-plan.js');
  plan.prestartDirector(plan.readsStoreFirst(cmd), screen);
}

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const io: Streams = {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
  color: process.stderr.isTTY && process.env['NO_COLOR'] === undefined,
};

async function run(cmd: Command): Promise<ExitCode> {
  // the launcher has usually done it already (bin/host/early-boot.ts); once per process
  const tty = { stdin: process.stdin.isTTY === true, stdout: process.stdout.isTTY === true };
  if (runsLocalTasks(cmd, tty)) await prestartDirector(cmd, drawsScreen(cmd, tty));
  switch (cmd.kind) {
    case 'version':
      io.stdout((await import('./cli/version.js')).versionLine(pkg.version, new URL('../build-stamp.json', import.meta.url)));
      return EXIT.ok;
    case 'help':
      io.stdout(cmd.topic === undefined ? usage(pkg.version) : subcommandUsage(cmd.topic));
      return EXIT.ok;
    case 'headless': {
      const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
      if (cmd.interactivePrompt !== undefined && !terminal) {
        throw new CliError('a prompt without -p opens the interactive UI, which needs a terminal', EXIT.error, undefined, `run it headless: yagent -p ${JSON.stringify(cmd.interactivePrompt)}`);
      }
      const modelOptions = { ...(cmd.model?.provider !== undefined ? { provider: cmd.model.provider } : {}), ...(cmd.model?.model !== undefined ? { model: cmd.model.model } : {}) };
      if (!cmd.explicit && process.stdin.isTTY === true) {
        if (process.stdout.isTTY !== true) {
          io.stdout(usage(pkg.version));
          return EXIT.ok;
        }
        // a bare `yagent` on a terminal: the interactive TUI (in-process, or on a running supervisor with --attach)
        const { runTuiAttached, runTuiLocal } = await import('./tui/run.js');
        const { resolveBindings } = await import('./tui/keys.js');
        // [tui.keybindings] was validated at load (a bad entry is exit 2 before the screen opens)
        const st = await (await import('../src/runtime/config/setup-state.js')).setupState({ configPath: cmd.flags.config });
        if (st.state === 'broken') throw new ConfigExit(st.error.lines());
        const tui = {
          workspace: process.cwd(),
          options: { yolo: cmd.flags.yolo, fullYolo: cmd.flags.fullYolo, disabledAgents: cmd.flags.disabledAgents, ...modelOptions },
          session: cmd.session,
          bindings: resolveBindings(st.config.tui.keybindings),
          ...(cmd.interactivePrompt !== undefined ? { prompt: cmd.interactivePrompt } : {}),
        };
        if (cmd.attach) return runTuiAttached((await import('./attach/client.js')).ControlClient.discover(), tui);
        return runTuiLocal({ configPath: cmd.flags.config, io, canAsk: true }, tui);
      }
      const { readPrompt } = await import('./cli/prompt-input.js');
      const { runHeadlessAttached, runHeadlessLocal } = await import('./cli/headless.js');
      const prompt = await readPrompt(cmd.prompt, process.stdin);
      const spec = {
        prompt,
        workspace: process.cwd(),
        options: { yolo: cmd.flags.yolo, fullYolo: cmd.flags.fullYolo, disabledAgents: cmd.flags.disabledAgents, ...modelOptions },
        ...(cmd.session ? { session: cmd.session } : {}),
      };
      let continues: string | undefined;
      // --attach too: the supervisor's ledger is this data root's
      if (cmd.session) {
        const checked = await (await import('./cli/session-check.js')).checkSession(spec.workspace, cmd.session);
        if ('refusal' in checked) {
          io.stderr(`yagent: ${checked.refusal}\n`);
          return EXIT.error;
        }
        continues = checked.sessionId;
      }
      const run = { spec, format: cmd.format, forceQuit: cmd.flags.forceQuit, io, ...(continues !== undefined ? { continues } : {}) };
      if (cmd.attach) return runHeadlessAttached((await import('./attach/client.js')).ControlClient.discover(), run);
      return withLocalHost({ configPath: cmd.flags.config, io, verbose: cmd.flags.verbose, startBeforeNotice: true }, async (host) => {
        (await import('./host/providers.js')).checkProviderFlag(host.providers(), cmd.model?.provider, cmd.flags.config);
        return runHeadlessLocal(host, run);
      });
    }
    case 'demo':
      return (await import('./cli/demo.js')).runDemo({ flags: cmd.flags, keep: cmd.keep, io });
    case 'batch': {
      const { runBatch, defaultOut } = await import('./cli/batch.js');
      const out = cmd.out ?? defaultOut(cmd.file);
      return withLocalHost({ configPath: cmd.flags.config, io, verbose: cmd.flags.verbose }, async (host) => {
        (await import('./host/providers.js')).checkProviderFlag(host.providers(), cmd.model?.provider, cmd.flags.config);
        return runBatch(host, {
          file: cmd.file,
          out,
          parallel: cmd.parallel,
          defaults: { yolo: cmd.flags.yolo, fullYolo: cmd.flags.fullYolo, disabledAgents: cmd.flags.disabledAgents, ...(cmd.model ?? {}) },
          forceQuit: cmd.flags.forceQuit,
          retryFailed: cmd.retryFailed,
          io,
          isTty: process.stderr.isTTY === true,
        });
      });
    }
    case 'queue-batch':
    case 'queue-status':
    case 'queue-results':
    case 'worker':
      return (await import('./cli/queue/command.js')).runQueueCommand(cmd, io);
    case 'serve': {
      const { runServe } = await import('./server/serve.js');
      return withLocalHost({ configPath: cmd.flags.config, io, canAsk: true, verbose: cmd.flags.verbose }, (host) =>
        runServe(host, { port: cmd.port, version: pkg.version, io, forceQuit: cmd.flags.forceQuit }),
      );
    }
    case 'sessions':
      return (await import('./cli/sessions.js')).runSessions(process.cwd(), cmd.json, io);
    case 'mcp':
      return (await import('./cli/mcp.js')).runMcp(cmd.args, io);
    case 'undo':
      return (await import('./cli/undo.js')).runUndo(process.cwd(), cmd, io, process.stdin.isTTY === true && process.stderr.isTTY === true);
    case 'attach':
      return (await import('./attach/commands.js')).runAttach(cmd.args, { out: io.stdout, err: io.stderr });
    case 'setup':
      return (await import('./cli/setup.js')).runSetup(cmd.flags.config, cmd.setup, io, process.stdin.isTTY === true && process.stderr.isTTY === true);
  }
}

/** The CLI: bin/yagent.js calls it (from the code-cached bundle dist/bin/main.cjs, or this compiled module) and exits. */
export async function main(argv: string[]): Promise<ExitCode> {
  try {
    return await run(parseCommand(argv));
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr(formatCliError(err));
      return err.exitCode;
    }
    if (err instanceof ConfigExit) {
      io.stderr(`${err.lines.join('\n')}\n`);
      return EXIT.config;
    }
    io.stderr(`yagent: ${(err as Error).stack ?? String(err)}\n`);
    return EXIT.error;
  }
}

