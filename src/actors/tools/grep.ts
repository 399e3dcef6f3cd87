// grep: regex search through files with the system ripgrep; a clear note and a built-in fallback when absent.
import { nodeChildProcess } from '../../runtime/lazy-builtins.js';
import { relative } from 'node:path';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, readTags } from './define.js';
import { resolveIn } from './path-resolve.js';
import { SEARCH_MAX_RESULTS } from './limits.js';
import { builtinGrep, type GrepQuery } from './grep-fallback.js';
import { walkGuard } from './walk-guard.js';

const schema = z.object({
  pattern: z.string().min(1).describe('Regular expression (ripgrep / Rust syntax).'),
  path: z.string().default('.').describe('File or directory to search. Default: the workspace.'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts".'),
  ignore_case: z.boolean().default(false),
});

/** The rg binary; YAGENT_RG overrides it (tests point it at a missing file to pin the fallback). */
const rgBinary = (): string => process.env.YAGENT_RG ?? 'rg';

export const RG_MISSING_NOTE = '[ripgrep (rg) is not installed: used the slower built-in search; install ripgrep for speed]';

type RgResult = { kind: 'lines'; lines: string[] } | { kind: 'missing' } | { kind: 'careful' } | { kind: 'error'; message: string };

function runRg(cwd: string, target: string, q: GrepQuery, signal: AbortSignal): Promise<RgResult> {
  const argv = ['--line-number', '--no-heading', '--color', 'never', '--max-columns', '500'];
  if (q.ignoreCase) argv.push('-i');
  if (q.include) argv.push('-g', q.include);
  // no path argument for the workspace itself: rg then prints paths without a `./` prefix
  argv.push('-e', q.pattern, ...(target === '.' ? [] : ['--', target]));
  return new Promise((resolve) => {
    // abort by hand: spawn's own `signal` option leaves its listener on the turn signal when rg is missing
    const child = nodeChildProcess().spawn(rgBinary(), argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const onAbort = (): void => void child.kill('SIGKILL');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const settle = (r: RgResult): void => {
      signal.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const lines: string[] = [];
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) if (lines.length < q.maxResults) lines.push(l);
      if (lines.length >= q.maxResults) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => void (stderr += c));
    child.on('error', (e: NodeJS.ErrnoException) =>
      settle(e.code === 'ENOENT' ? { kind: 'missing' } : { kind: 'error', message: e.message }),
    );
    child.on('close', (code) => {
      if (partial && lines.length < q.maxResults) lines.push(partial);
      if (code === 2 && lines.length === 0) settle({ kind: 'error', message: stderr.trim() || 'rg failed' });
      else settle({ kind: 'lines', lines });
    });
  });
}

export default defineTool({
  name: 'grep',
  schema,
  tags: readTags({ pathParams: ['path'], display: 'query', brief: (a) => briefArg(a, 'pattern') }),
  async execute(args, ctx) {
    const target = resolveIn(ctx.workspace, args.path);
    const q: GrepQuery = { pattern: args.pattern, ignoreCase: args.ignore_case, include: args.glob, maxResults: SEARCH_MAX_RESULTS };
    const walk = walkGuard(ctx, target);
    // a denied zone under the root (or a search outside the workspace): the walk that checks every path
    let res: RgResult = walk.careful ? { kind: 'careful' } : await runRg(ctx.workspace, relative(ctx.workspace, target) || '.', q, ctx.signal);
    let note = '';
    if (res.kind === 'missing' || res.kind === 'careful') {
      if (res.kind === 'missing') note = `${RG_MISSING_NOTE}\n`;
      try {
        res = { kind: 'lines', lines: await builtinGrep(ctx.workspace, target, q, ctx.signal, walk.skips) };
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        return fail('invalid_pattern', `${note}${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (res.kind === 'error') return fail('grep_failed', res.message);
    const more = res.lines.length >= SEARCH_MAX_RESULTS ? `\n[stopped at ${SEARCH_MAX_RESULTS} matches; narrow the pattern]` : '';
    const body = res.lines.length === 0 ? 'No matches.' : res.lines.join('\n') + more;
    return ok(note + body, `${args.pattern} (${res.lines.length})`);
  },
});
