// Path shapes of the data root: where rollouts, notes, artifacts, task memory and settings live.
import { nodeCrypto } from '../runtime/lazy-builtins.js';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** Home lookup, injectable so the "no home" fallback is testable. */
export type HomeFn = () => string;

function safeHome(home: HomeFn): string | null {
  try {
    const h = home();
    return h ? h : null;
  } catch {
    return null;
  }
}

/** `YAGENT_HOME` → `~/.yagent`; without a home, a CWD-relative `.yagent` (never an error). */
export function dataRoot(env: Env = process.env, home: HomeFn = homedir): string {
  if (env.YAGENT_HOME) return resolve(env.YAGENT_HOME);
  const h = safeHome(home);
  return h ? join(h, '.yagent') : resolve('.yagent');
}

/** `YAGENT_NOTES_ROOT` → `{YAGENT_HOME}/notes` → `~/.yagent/notes`; without a home, CWD-relative `notes/` (seed rule 9). */
export function notesRoot(env: Env = process.env, home: HomeFn = homedir): string {
  if (env.YAGENT_NOTES_ROOT) return resolve(env.YAGENT_NOTES_ROOT);
  if (env.YAGENT_HOME) return join(resolve(env.YAGENT_HOME), 'notes');
  const h = safeHome(home);
  return h ? join(h, '.yagent', 'notes') : resolve('notes');
}

export const rolloutRoot = (root: string): string => join(root, 'data', 'rollout');
export const rolloutDir = (root: string, projectId: string): string => join(rolloutRoot(root), sanitizeSegment(projectId, 128, 'unknown'));
export const artifactsDir = (root: string): string => join(root, 'data', 'artifacts');
export const tasksDir = (root: string): string => join(root, 'tasks');
export const timelineDir = (root: string): string => join(root, 'data', 'timeline');
export const settingsPath = (root: string): string => join(root, 'settings.json');

/** Keeps `[A-Za-z0-9._-]`, never a leading dot (no `..`), cut to `max`; empty → `fallback`. */
export function sanitizeSegment(raw: string, max: number, fallback: string): string {
  const s = raw.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, max);
  return s.length > 0 ? s : fallback;
}

/** Board id cut to 128 chars. Returns null for an empty id: never invent an ad-hoc board (seed rule 10). */
export function sanitizeBoardId(raw: string): string | null {
  if (raw.trim().length === 0) return null;
  return sanitizeSegment(raw.trim(), 128, '_');
}

/** Agent dir name cut to 64 chars; empty becomes `unknown` (seed rule 9). */
export function sanitizeAgent(raw: string): string {
  return sanitizeSegment(raw.trim().toLowerCase(), 64, 'unknown');
}

/** Board scope = session, else task; both empty → null (the caller must not write). */
export function boardScope(sessionId: string | null | undefined, taskId: string | null | undefined): string | null {
  if (sessionId && sessionId.trim()) return sessionId.trim();
  if (taskId && taskId.trim()) return taskId.trim();
  return null;
}

export const boardDir = (notes: string, boardId: string): string => join(notes, boardId);
export const agentDir = (notes: string, boardId: string, agent: string): string => join(notes, boardId, sanitizeAgent(agent));

/** The nearest directory from `dir` up to the root that holds a `.git` entry (git's own discovery: the safe git
 *  environment never passes GIT_DIR), or null when none does. */
export function gitRootAbove(dir: string): string | null {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return null;
  }
}

/** Git root of a workspace (nearest ancestor with `.git`), else the workspace itself. */
export function workspaceRoot(workspace: string): string {
  return gitRootAbove(workspace) ?? resolve(workspace);
}

/** Stable project id: readable base name + sha256 of the real git root / workspace path. */
export function projectIdFor(workspace: string): string {
  const root = workspaceRoot(workspace);
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // a workspace that vanished still gets a stable id from its path
  }
  const hash = nodeCrypto().createHash('sha256').update(real).digest('hex').slice(0, 12);
  return `${sanitizeSegment(basename(real), 40, 'root')}-${hash}`;
}

/** `YYYYMMDDTHHMMSSZ` in UTC. */
export function compactUtc(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

/** Rollout file name `{ts}_{session}[_{agent}].jsonl`; child (delegation) rollouts carry the agent suffix. */
export function rolloutFileName(ms: number, sessionId: string, agent?: string): string {
  const s = sanitizeSegment(sessionId, 80, 'session');
  return agent ? `${compactUtc(ms)}_${s}_${sanitizeAgent(agent)}.jsonl` : `${compactUtc(ms)}_${s}.jsonl`;
}
