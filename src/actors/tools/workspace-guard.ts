// WorkspaceGuard: finds what in a call needs the user's approval (paths outside the workspace, root, the
// model's own danger flag) and what is denied outright (the data root, secret stores: see boundary.ts).
// Every tool's pathParams are checked, reads included; only denied zones refuse, the rest is asking.
import type { ToolDeclaration } from './types.js';
import { resolve } from 'node:path';
import { fileUrlPath, isInside, realpathLoose, realpathPhysical, resolveIn } from './path-resolve.js';
import { defaultBoundary, type Access, type Boundary, type ResolvedBoundary } from './boundary.js';
import { shellWords } from './shell-paths.js';
import { buildShellEnv } from './shell-env.js';

export { pathTokens } from './shell-paths.js';

export interface GuardReason {
  /** Grant key: `<tool>:<path>` for paths, `<tool>:dangerous` for the model's flag. */
  key: string;
  text: string;
  /** Outside path this reason is about (grants on an ancestor cover it). */
  path?: string;
  /** A denied zone: refused without asking, also with -y. */
  deny?: true;
  /** false = a project-level grant does not cover this reason (only -y, or a grant of this session). */
  projectGrant?: boolean;
}

/** Absolute paths a shell command may name without asking: device files and the system's program dirs. */
export const SAFE_SYSTEM_PATHS: readonly string[] = [
  '/dev/null', '/dev/zero', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/random', '/dev/urandom',
];
export const SAFE_SYSTEM_DIRS: readonly string[] = ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin'];

const ROOT_TOKEN = /^\/+\**$/;

function isSafeSystemPath(p: string): boolean {
  return SAFE_SYSTEM_PATHS.includes(p) || SAFE_SYSTEM_DIRS.some((d) => p.startsWith(`${d}/`));
}

const accessOf = (decl: ToolDeclaration): Access => (decl.tags.effect === 'read' ? 'read' : 'write');

export class WorkspaceGuard {
  readonly boundary: Boundary;
  constructor(
    readonly workspace: string,
    boundary?: Boundary,
    /** run_bash's environment (`ToolEnv.shellEnv`): words expand as that shell expands them. Absent: the same
     *  fallback run_bash uses (process.env minus secret-looking names), read at each check. */
    private readonly shellEnv?: NodeJS.ProcessEnv,
  ) {
    this.boundary = boundary ?? defaultBoundary(workspace);
  }

  /** Reasons this call needs authorization (or is denied); empty = run it. */
  async check(decl: ToolDeclaration, args: Record<string, unknown>): Promise<GuardReason[]> {
    const b = this.boundary.resolved();
    const reasons: GuardReason[] = [];
    for (const key of decl.tags.pathParams) {
      const v = args[key];
      if (typeof v !== 'string' || v === '') continue;
      reasons.push(...pathReason(decl.name, realpathLoose(resolveIn(this.workspace, v)), accessOf(decl), b, `${key} "${v}"`, 'resolves outside the workspace'));
    }
    for (const key of decl.tags.urlParams ?? []) {
      const real = fileUrlPath(args[key]);
      if (real === null) continue; // http(s) and the rest: not a path (the tool decides which schemes it opens)
      reasons.push(...pathReason(decl.name, real, 'read', b, `${key} "${String(args[key])}"`, 'is a file outside the workspace'));
    }
    for (const key of decl.tags.commandParams ?? []) {
      const v = args[key];
      if (typeof v === 'string') reasons.push(...this.commandReasons(decl.name, v, b));
    }
    const approval = decl.tags.approval;
    if (approval !== undefined) reasons.push({ key: approval.key, text: approval.text, projectGrant: approval.projectGrant });
    const flag = decl.tags.dangerFlag;
    if (flag !== undefined && args[flag] === true) {
      reasons.push({ key: `${decl.name}:dangerous`, text: 'the model marked this call as dangerous' });
    }
    return dedupe(reasons);
  }

  private commandReasons(tool: string, command: string, b: ResolvedBoundary): GuardReason[] {
    const reasons: GuardReason[] = [];
    for (const { token, path, unresolved } of shellWords(command, { env: this.shellEnv ?? buildShellEnv(process.env), cwd: this.workspace })) {
      if (unresolved) {
        reasons.push({ key: `${tool}:unresolved ${token}`, text: `the command builds a path this check cannot follow ("${token}")` });
        continue;
      }
      if (ROOT_TOKEN.test(path)) {
        reasons.push({ key: `${tool}:/`, path: '/', text: `the command names the file-system root ("${token}")` });
        continue;
      }
      // a glob's fixed part (`src/*.ts` → `src/`); a bare `*.ts`, or a word that expanded to nothing, is the cwd
      const word = path.replace(/\*.*$/, '') || '.';
      if (isSafeSystemPath(resolve(this.workspace, word))) continue;
      // a /proc word with a glob or "env" in it may name a process's environment (globs are not resolved here)
      const lexical = resolve(this.workspace, path);
      if (lexical.startsWith('/proc/') && /env|[*?[]/.test(lexical.slice('/proc/'.length))) {
        reasons.push({ key: `${tool}:${lexical}`, path: lexical, deny: true, text: `the command names "${token}": a process's environment under /proc (yagent's own holds its keys)` });
        continue;
      }
      // every word, resolved as the kernel would: a symlink in the workspace can point anywhere
      const real = realpathPhysical(word, this.workspace);
      const denied = b.denied(real, 'shell');
      if (denied !== null) reasons.push({ key: `${tool}:${real}`, path: real, deny: true, text: `the command names "${token}": ${denied}` });
      else if (real === '/' || !isInside(b.root, real)) {
        reasons.push({ key: `${tool}:${real}`, path: real, text: `the command names "${token}", outside the workspace` });
      }
    }
    return reasons;
  }
}

/** A path argument's reason: refused in a denied zone, asked outside the workspace, none inside it. */
function pathReason(tool: string, real: string, access: Access, b: ResolvedBoundary, arg: string, outside: string): GuardReason[] {
  const denied = b.denied(real, access);
  if (denied !== null) return [{ key: `${tool}:${real}`, path: real, deny: true, text: `${arg}: ${denied}` }];
  return b.inside(real) ? [] : [{ key: `${tool}:${real}`, path: real, text: `${arg} ${outside} (${real})` }];
}

function dedupe(reasons: GuardReason[]): GuardReason[] {
  const seen = new Set<string>();
  return reasons.filter((r) => (seen.has(r.key) ? false : (seen.add(r.key), true)));
}
