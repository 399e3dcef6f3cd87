// Argument parsing for every sub-command: common flags as the seeds give them, typed results.
import { parseArgs } from 'node:util';
import { resolveDisabledAgents } from '../../src/actors/agents/profiles.js';
import { CliError, EXIT } from './exit-codes.js';
import { argError, didYouMean } from './arg-errors.js';
import { parseQueueBatch, parseWorker, wantsQueue, type QueueCommand } from './queue/args.js';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface CommonFlags {
  config: string | undefined;
  yolo: boolean;
  fullYolo: boolean;
  disabledAgents: string[];
  forceQuit: boolean;
  /** `-v`: warn and error log lines are mirrored to stderr (they always go to ~/.yagent/logs/). */
  verbose: boolean;
}

const COMMON = {
  config: { type: 'string', short: 'c' },
  yolo: { type: 'boolean', short: 'y', default: false },
  'full-yolo': { type: 'boolean', short: 'Y', default: false },
  'disable-agents': { type: 'string', short: 'd' },
  'force-quit': { type: 'boolean', short: 'Q', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

const SUBCOMMANDS = new Set(['demo', 'batch', 'serve', 'setup', 'sessions', 'mcp', 'undo', 'worker']);
const COMMON_WITH_VALUE = new Set(['-c', '--config', '-d', '--disable-agents']);
const COMMON_BOOLEAN = new Set(['-y', '--yolo', '-Y', '--full-yolo', '-Q', '--force-quit', '-v', '--verbose']);

/** `yagent -c cfg serve`: common options written before a sub-command move behind it. */
export function hoistSubcommand(argv: string[]): string[] {
  let i = 0;
  while (i < argv.length) {
    const t = argv[i] ?? '';
    if (COMMON_WITH_VALUE.has(t)) i += 2;
    else if (COMMON_BOOLEAN.has(t) || /^--(config|disable-agents)=/.test(t)) i += 1;
    else break;
  }
  const sub = argv[i];
  if (i === 0 || sub === undefined || !SUBCOMMANDS.has(sub)) return argv;
  return [sub, ...argv.slice(i + 1), ...argv.slice(0, i)];
}

export type Command =
  | { kind: 'version' }
  /** topic: a sub-command's own usage (`yagent batch --help`). */
  | { kind: 'help'; topic?: HelpTopic }
  /** prompt null = read it from stdin; `explicit` false = no -p given (stdin must not be a TTY). */
  | { kind: 'headless'; flags: CommonFlags; prompt: string | null; explicit: boolean; format: OutputFormat; attach: boolean; session?: SessionFlags; model?: ModelFlags; interactivePrompt?: string }
  | { kind: 'sessions'; flags: CommonFlags; json: boolean }
  | { kind: 'undo'; flags: CommonFlags; id: string | undefined; json: boolean; yes: boolean; dryRun: boolean }
  | { kind: 'demo'; flags: CommonFlags; keep: boolean }
  | { kind: 'batch'; flags: CommonFlags; file: string; parallel: number; out: string | undefined; retryFailed: boolean; model?: ModelFlags }
  | { kind: 'serve'; flags: CommonFlags; port: number }
  | { kind: 'attach'; args: string[] }
  | { kind: 'mcp'; args: string[] }
  | { kind: 'setup'; flags: CommonFlags; setup: SetupFlags }
  | QueueCommand;

export type HelpTopic = 'demo' | 'batch' | 'serve' | 'setup' | 'worker';

/** --provider NAME / --model ID: the provider (and its model) every agent of the run uses, fixed at start. */
export interface ModelFlags {
  provider?: string;
  model?: string;
}

/** --resume ID | --continue, optionally --fork (sessions: multi-turn conversations). */
export interface SessionFlags {
  resume?: string;
  continueLatest?: boolean;
  fork?: boolean;
}

export interface SetupFlags {
  provider: string | undefined;
  baseUrl: string | undefined;
  model: string | undefined;
  apiKeyEnv: string | undefined;
  format: string | undefined;
  probe: boolean;
}

export function usageError(message: string): CliError {
  return new CliError(message, EXIT.error, undefined, 'run `yagent --help`');
}

/** `-d` through the agents' own resolver (a leaf module): an unknown name is a usage error with exit 2, before any boot. */
function disabledAgents(raw: string): string[] {
  try {
    return resolveDisabledAgents([raw]);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.config, undefined, 'name built-in agents (comma-separated) or `all`');
  }
}

export function common(values: Record<string, unknown>): CommonFlags {
  const full = values['full-yolo'] === true;
  const disabled = typeof values['disable-agents'] === 'string' ? values['disable-agents'] : '';
  return {
    config: typeof values.config === 'string' ? values.config : undefined,
    yolo: values.yolo === true || full,
    fullYolo: full,
    disabledAgents: disabledAgents(disabled),
    forceQuit: values['force-quit'] === true,
    verbose: values.verbose === true,
  };
}

export function parse<T extends Record<string, { type: 'string' | 'boolean'; short?: string; default?: string | boolean }>>(
  args: string[],
  options: T,
  command = '',
) {
  try {
    return parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw argError(err, { ...COMMON, ...options }, command);
  }
}

export function positiveInt(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw usageError(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/** `--port`: 0 (any free port) to 65535; anything else is a three-line usage error. */
function tcpPort(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new CliError(`--port must be a TCP port from 0 to 65535, got "${raw}"`, EXIT.error, `yagent serve --port ${raw}`, 'pick a port from 1024 to 65535, or 0 (the default) for any free port');
  }
  return n;
}

export function parseCommand(argv: string[]): Command {
  const [first, ...rest] = hoistSubcommand(argv);
  switch (first) {
    case '--version':
    case '-V':
      return { kind: 'version' };
    case '--help':
    case '-h':
    case 'help':
      return { kind: 'help' };
    case 'attach':
      return { kind: 'attach', args: rest };
    case 'sessions': {
      const { values } = parse(rest, { json: { type: 'boolean', default: false } }, 'sessions');
      return { kind: 'sessions', flags: common(values), json: values.json === true };
    }
    case 'mcp':
      return { kind: 'mcp', args: rest };
    case 'undo': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean', default: false }, yes: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false } }, 'undo');
      if (positionals.length > 1) throw usageError('undo takes one undo point id (see `yagent undo`)');
      return { kind: 'undo', flags: common(values), id: positionals[0], json: values.json === true, yes: values.yes === true, dryRun: values['dry-run'] === true };
    }
    case 'demo': {
      const { values } = parse(rest, { keep: { type: 'boolean', default: false } }, 'demo');
      if (values.help) return { kind: 'help', topic: 'demo' };
      return { kind: 'demo', flags: common(values), keep: values.keep === true };
    }
    case 'batch': {
      if (wantsQueue(rest)) return parseQueueBatch(rest);
      const { values, positionals } = parse(rest, { parallel: { type: 'string', short: 'j' }, out: { type: 'string', short: 'o' }, 'no-retry-failed': { type: 'boolean' }, ...MODEL_OPTIONS }, 'batch');
      if (values.help) return { kind: 'help', topic: 'batch' };
      const file = positionals[0];
      if (file === undefined) throw usageError('batch needs a TASKS.jsonl file');
      const parallel = positiveInt(values.parallel, '--parallel', 2);
      if (parallel < 1) throw usageError('--parallel must be at least 1');
      return { kind: 'batch', flags: common(values), file, parallel, out: values.out, retryFailed: values['no-retry-failed'] !== true, ...modelFlags(values) };
    }
    case 'worker':
      return parseWorker(rest);
    case 'serve': {
      const { values } = parse(rest, { port: { type: 'string' } }, 'serve');
      if (values.help) return { kind: 'help', topic: 'serve' };
      return { kind: 'serve', flags: common(values), port: tcpPort(values.port) };
    }
    case 'setup': {
      const { values } = parse(rest, {
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        'api-key-env': { type: 'string' },
        format: { type: 'string' },
        'no-probe': { type: 'boolean', default: false },
      }, 'setup');
      if (values.help) return { kind: 'help', topic: 'setup' };
      return {
        kind: 'setup',
        flags: common(values),
        setup: {
          provider: values.provider,
          baseUrl: values['base-url'],
          model: values.model,
          apiKeyEnv: values['api-key-env'],
          format: values.format,
          probe: values['no-probe'] !== true,
        },
      };
    }
    default:
      return parseHeadless(argv);
  }
}

function parseHeadless(argv: string[]): Command {
  const { values, positionals } = parse(argv, {
    prompt: { type: 'string', short: 'p' },
    'output-format': { type: 'string', default: 'text' },
    attach: { type: 'boolean', default: false },
    resume: { type: 'string' },
    continue: { type: 'boolean', default: false },
    fork: { type: 'boolean', default: false },
    ...MODEL_OPTIONS,
  });
  if (values.help) return { kind: 'help' };
  if (values.prompt === undefined && positionals.length > 0) {
    // `yagent sesions`: a one-word slip of a sub-command is not a prompt
    const word = positionals.length === 1 ? (positionals[0] ?? '') : '';
    const sub = /^[a-z]{3,}$/.test(word) ? didYouMean(word, [...SUBCOMMANDS, 'attach', 'help']) : null;
    if (sub !== null) throw new CliError(`unknown command "${word}" (did you mean \`yagent ${sub}\`?)`, EXIT.error, undefined, `run \`yagent --help\`; to send it as a prompt: yagent -p ${JSON.stringify(word)}`);
  }
  if (values.prompt !== undefined && positionals.length > 0) {
    // `yagent -p fix the test`: the shell split the prompt; running "fix" alone would be a silent surprise
    const whole = [values.prompt, ...positionals].join(' ');
    throw new CliError(`unexpected words after the prompt: ${positionals.join(' ')}`, EXIT.error, `-p takes one argument, got "${values.prompt}"`, `quote the whole prompt: yagent -p ${JSON.stringify(whole)}`);
  }
  const format = values['output-format'];
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    throw usageError(`--output-format must be one of ${OUTPUT_FORMATS.join(', ')}, got "${format}"`);
  }
  const prompt = values.prompt === undefined || values.prompt === '-' ? null : values.prompt;
  return {
    kind: 'headless',
    flags: common(values),
    prompt,
    explicit: values.prompt !== undefined,
    format: format as OutputFormat,
    attach: values.attach === true,
    ...sessionFlags(values.resume, values.continue === true, values.fork === true),
    ...modelFlags(values),
    // `yagent "fix it"`: the interactive UI opens with that prompt (as Claude Code and Codex do)
    ...(values.prompt === undefined && positionals.length > 0 ? { interactivePrompt: positionals.join(' ') } : {}),
  };
}

const MODEL_OPTIONS = { provider: { type: 'string' }, model: { type: 'string' } } as const;

function modelFlags(values: { provider?: string | boolean | undefined; model?: string | boolean | undefined }): { model?: ModelFlags } {
  const provider = typeof values.provider === 'string' ? values.provider : undefined;
  const model = typeof values.model === 'string' ? values.model : undefined;
  if (provider === '' || model === '') throw usageError(`--${provider === '' ? 'provider' : 'model'} needs a non-empty value`);
  if (provider === undefined && model === undefined) return {};
  return { model: { ...(provider !== undefined ? { provider } : {}), ...(model !== undefined ? { model } : {}) } };
}

function sessionFlags(resume: string | undefined, continueLatest: boolean, fork: boolean): { session?: SessionFlags } {
  if (resume !== undefined && continueLatest) throw usageError('--resume and --continue exclude each other');
  if (fork && resume === undefined && !continueLatest) throw usageError('--fork needs --resume SESSION_ID or --continue');
  if (resume === undefined && !continueLatest) return {};
  return { session: { ...(resume !== undefined ? { resume } : { continueLatest: true }), ...(fork ? { fork: true } : {}) } };
}

/** Whether `cmd` opens the TUI in this process (a bare `yagent` or `yagent "fix it"` on a terminal, not --attach):
 *  its agent and store workers then run below the screen (bin/host/boot-plan.ts `SCREEN_NICE`). */
export function drawsScreen(cmd: Command, tty: { stdin: boolean; stdout: boolean }): boolean {
  return cmd.kind === 'headless' && !cmd.explicit && !cmd.attach && tty.stdin && tty.stdout;
}

/** Whether `cmd` runs agents in this process (their Director's and store's workers are prestarted). */
export function runsLocalTasks(cmd: Command, tty: { stdin: boolean; stdout: boolean }): boolean {
  switch (cmd.kind) {
    case 'headless':
      // a bare `yagent` whose stdout is not a terminal prints the usage; --attach runs on another process;
      // `yagent "fix it"` runs only on a terminal (the TUI)
      if (cmd.interactivePrompt !== undefined) return !cmd.attach && tty.stdin && tty.stdout;
      return !cmd.attach && (cmd.explicit || !tty.stdin || tty.stdout);
    case 'demo':
    case 'batch':
    case 'serve':
    case 'worker':
      return true;
    default:
      return false;
  }
}
