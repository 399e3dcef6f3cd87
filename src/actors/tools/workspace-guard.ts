// WorkspaceGuard: finds what in a call needs the user's approval (paths outside the workspace, root, the
// model's own danger flag) and what is denied outright (the data root, secret stores: see boundary.ts).
// Every tool's pathParams are checked, reads included; only denied zones refuse, the rest is asking.
import type { ToolDeclaration } from './types.js';
import { resolve } from 'node:path';
import { fileUrlPath, isInside, realpathLoose, realpathPhysical, resolveIn } from './path-resolve.js';
import { defaultBoundary, type Access, type Boundary, type ResolvedBoundary } from './boundary.js';
import { shellWords } from './shell-words.js';
import { buildShellEnv } from './shell-env.js';

export { pathTokens } from './shell-words.js';

/** Whether run_bash's commands run in the OS sandbox (sandbox.ts): without it, the word check is the only layer. */
export interface SandboxState {
  active(): Promise<boolean>;
}

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
export const SAFE_SYSTEM_DIRS: readonly string[] = ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/dev/fd'];

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
    /** Absent: no sandbox (tests of the word check alone, clients without a config). */
    private readonly sandbox?: SandboxState,
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
      reasons.push(...pathReason(decl.name, realpathLoose(resolveIn(this.workspace, v)), accessOf(decl), b, `${key} "${v}"`, `is outside the workspace ${this.workspace}`, v));
    }
    for (const key of decl.tags.urlParams ?? []) {
      const real = fileUrlPath(args[key]);
      if (real === null) continue; // http(s) and the rest: not a path (the tool decides which schemes it opens)
      reasons.push(...pathReason(decl.name, real, 'read', b, `${key} "${String(args[key])}"`, `is a file outside the workspace ${this.workspace}`));
    }
    for (const key of decl.tags.commandParams ?? []) {
      const v = args[key];
      if (typeof v === 'string') reasons.push(...(await this.commandReasons(decl.name, v, b)));
    }
    const approval = decl.tags.approval;
    if (approval !== undefined) reasons.push({ key: approval.key, text: approval.text, projectGrant: approval.projectGrant });
    const flag = decl.tags.dangerFlag;
    if (flag !== undefined && args[flag] === true) {
      reasons.push({ key: `${decl.name}:dangerous`, text: 'the model marked this call as dangerous' });
    }
    return dedupe(reasons);
  }

  private async commandReasons(tool: string, command: string, b: ResolvedBoundary): Promise<GuardReason[]> {
    const reasons: GuardReason[] = [];
    const words = await shellWords(command, { env: this.shellEnv ?? buildShellEnv(process.env), cwd: this.workspace });
    const sandboxed = (await this.sandbox?.active()) === true;
    for (const { token, paths, unresolved, syntax } of words) {
      if (unresolved) {
        const text = syntax ? `the check cannot parse this command line as bash ("${token}")` : `the command builds a path this check cannot follow ("${token}")`;
        reasons.push({ key: `${tool}:unresolved ${token}`, text });
        continue;
      }
      if (ROOT_TOKEN.test(token)) {
        reasons.push({ key: `${tool}:/`, path: '/', text: `the command names the file-system root ("${token}")` });
        continue;
      }
      for (const path of paths) reasons.push(...this.pathReasons(tool, token, path === '' ? '.' : path, b, sandboxed));
    }
    return reasons;
  }

  private pathReasons(tool: string, token: string, word: string, b: ResolvedBoundary, sandboxed: boolean): GuardReason[] {
    if (ROOT_TOKEN.test(word)) return [{ key: `${tool}:/`, path: '/', text: `the command names the file-system root ("${token}")` }];
    const lexical = resolve(this.workspace, word);
    if (isSafeSystemPath(lexical)) return [];
    // a /proc word with a glob or "env" in it may name a process's environment (yagent's own holds its keys)
    if (lexical.startsWith('/proc/') && /env|[*?[]/.test(lexical.slice('/proc/'.length))) {
      return [{ key: `${tool}:${lexical}`, path: lexical, deny: true, text: `the command names "${token}": a process's environment under /proc (yagent's own holds its keys)` }];
    }
    // every word, resolved as the kernel would: a symlink in the workspace can point anywhere
    const real = realpathPhysical(word, this.workspace, b.root);
    const denied = b.denied(real, 'shell');
    if (denied !== null) return [{ key: `${tool}:${real}`, path: real, deny: true, text: `the command names "${token}": ${denied}` }];
    if (real === '/' || !isInside(b.root, real)) {
      // without the OS sandbox nothing masks a denied place: a directory holding one (`grep -r x ~`) is refused too
      const holds = sandboxed ? undefined : b.zonesUnder(real)[0];
      if (holds !== undefined && real !== '/') {
        return [{ key: `${tool}:${real}`, path: real, deny: true, text: `the command names "${token}": ${real} holds ${holds} (the yagent data root or a secret store), and without the OS sandbox a command there could read it` }];
      }
      return [{ key: `${tool}:${real}`, path: real, text: `the command names "${token}", outside the workspace` }];
    }
    return [];
  }
}

/** A path argument's reason: refused in a denied zone, asked outside the workspace, none inside it. */
/** `outside` names the workspace; where the path resolves is said only when it is not what was written. */
function pathReason(tool: string, real: string, access: Access, b: ResolvedBoundary, arg: string, outside: string, written?: string): GuardReason[] {
  const denied = b.denied(real, access);
  if (denied !== null) return [{ key: `${tool}:${real}`, path: real, deny: true, text: `${arg}: ${denied}` }];
  return b.inside(real) ? [] : [{ key: `${tool}:${real}`, path: real, text: `${arg} ${outside}${written === real ? '' : ` (it resolves to ${real})`}` }];
}

function dedupe(reasons: GuardReason[]): GuardReason[] {
  const seen = new Set<string>();
  return reasons.filter((r) => (seen.has(r.key) ? false : (seen.add(r.key), true)));
}
