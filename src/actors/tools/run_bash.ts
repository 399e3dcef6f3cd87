// run_bash: a shell command in its own process group; the model's is_dangerous flag and absolute paths
// outside the workspace go to authorization (derived from the commandParams / dangerFlag tags).
import { z } from 'zod';
import { briefArg, defineTool, fail, ok } from './define.js';
import { runInGroup } from './process-group.js';
import { buildShellEnv } from './shell-env.js';

export const DEFAULT_BASH_TIMEOUT_S = 120;
export const MAX_BASH_TIMEOUT_S = 600;

const schema = z.object({
  command: z.string().min(1).describe('Bash command line, run with `bash -c` in the workspace.'),
  is_dangerous: z.boolean().describe('true if the command deletes, overwrites or changes anything outside the workspace, or is hard to undo.'),
  timeout_seconds: z.number().int().min(1).max(MAX_BASH_TIMEOUT_S).default(DEFAULT_BASH_TIMEOUT_S).describe('Kill the command (and everything it started) after this many seconds.'),
});

export default defineTool({
  name: 'run_bash',
  schema,
  tags: {
    effect: 'shell',
    mutates: true,
    serial: true,
    needsAuth: true,
    pathParams: [],
    commandParams: ['command'],
    dangerFlag: 'is_dangerous',
    truncation: 'head_tail',
    display: 'command',
    brief: (a) => briefArg(a, 'command'),
  },
  async execute(args, ctx) {
    const env = ctx.shellEnv ?? buildShellEnv(process.env);
    const r = await runInGroup({ command: args.command, cwd: ctx.workspace, env, timeoutMs: args.timeout_seconds * 1000, signal: ctx.signal });
    const tail = r.killedStragglers ? '\n[background processes still holding the output were killed]' : '';
    if (r.timedOut) {
      return fail('timeout', `Timed out after ${args.timeout_seconds}s; the command and everything it started were killed.\nOutput so far:\n${r.output}`);
    }
    const status = r.exitSignal ? `killed by ${r.exitSignal}` : `exit code ${r.exitCode ?? 'unknown'}`;
    return ok(`${status}\n${r.output}${tail}`, `${args.command.split('\n')[0] ?? ''} (${status})`);
  },
});
