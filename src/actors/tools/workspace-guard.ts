// WorkspaceGuard: finds what in a guarded call needs the user's approval (paths outside the workspace,
// root, the model's own danger flag). It never refuses: the only enforcement is asking.
import type { ToolDeclaration } from './types.js';
import { isInside, realpathLoose, resolveIn } from './paths.js';

export interface GuardReason {
  /** Grant key: `<tool>:<path>` for paths, `<tool>:dangerous` for the model's flag. */
  key: string;
  text: string;
  /** Outside path this reason is about (grants on an ancestor cover it). */
  path?: string;
  /** false = a project-level grant does not cover this reason (only -y, or a grant of this session). */
  projectGrant?: boolean;
}

/** Absolute paths a shell command may name without asking: device files and the system's program dirs. */
export const SAFE_SYSTEM_PATHS: readonly string[] = [
  '/dev/null', '/dev/zero', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/random', '/dev/urandom',
];
export const SAFE_SYSTEM_DIRS: readonly string[] = ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin'];

const ROOT_TOKEN = /^\/+\**$/;

/** Path-like tokens of a shell command: absolute, home-relative, or relative with `..` segments. */
export function pathTokens(command: string): string[] {
  const out: string[] = [];
  for (const raw of command.split(/[\s;|&<>()`]+/)) {
    const t = raw.replace(/^['"]+|['"]+$/g, '').replace(/^[A-Za-z_][A-Za-z0-9_]*=/, '').replace(/^-[A-Za-z-]+=/, '');
    if (t === '') continue;
    if (t.startsWith('/') || t === '~' || t.startsWith('~/') || /(^|\/)\.\.(\/|$)/.test(t)) out.push(t);
  }
  return out;
}

function isSafeSystemPath(p: string): boolean {
  return SAFE_SYSTEM_PATHS.includes(p) || SAFE_SYSTEM_DIRS.some((d) => p.startsWith(`${d}/`));
}

export class WorkspaceGuard {
  private root: Promise<string>;
  constructor(readonly workspace: string) {
    this.root = realpathLoose(workspace);
  }

  /** Reasons this call needs authorization; empty = run it. Only `needsAuth` tools are checked. */
  async check(decl: ToolDeclaration, args: Record<string, unknown>): Promise<GuardReason[]> {
    if (!decl.tags.needsAuth) return [];
    const root = await this.root;
    const reasons: GuardReason[] = [];
    for (const key of decl.tags.pathParams) {
      const v = args[key];
      if (typeof v !== 'string' || v === '') continue;
      const real = await realpathLoose(resolveIn(this.workspace, v));
      if (!isInside(root, real)) {
        reasons.push({ key: `${decl.name}:${real}`, path: real, text: `${key} "${v}" resolves outside the workspace (${real})` });
      }
    }
    for (const key of decl.tags.commandParams ?? []) {
      const v = args[key];
      if (typeof v === 'string') reasons.push(...(await this.commandReasons(decl.name, v, root)));
    }
    const approval = decl.tags.approval;
    if (approval !== undefined) reasons.push({ key: approval.key, text: approval.text, projectGrant: approval.projectGrant });
    const flag = decl.tags.dangerFlag;
    if (flag !== undefined && args[flag] === true) {
      reasons.push({ key: `${decl.name}:dangerous`, text: 'the model marked this call as dangerous' });
    }
    return dedupe(reasons);
  }

  private async commandReasons(tool: string, command: string, root: string): Promise<GuardReason[]> {
    const reasons: GuardReason[] = [];
    for (const token of pathTokens(command)) {
      if (ROOT_TOKEN.test(token)) {
        reasons.push({ key: `${tool}:/`, path: '/', text: `the command names the file-system root ("${token}")` });
        continue;
      }
      const resolved = resolveIn(this.workspace, token.replace(/\*.*$/, '') || '/');
      if (isSafeSystemPath(resolved)) continue;
      const real = await realpathLoose(resolved);
      if (real === '/' || !isInside(root, real)) {
        reasons.push({ key: `${tool}:${real}`, path: real, text: `the command names "${token}", outside the workspace` });
      }
    }
    return reasons;
  }
}

function dedupe(reasons: GuardReason[]): GuardReason[] {
  const seen = new Set<string>();
  return reasons.filter((r) => (seen.has(r.key) ? false : (seen.add(r.key), true)));
}
