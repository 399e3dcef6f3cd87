// run_bash inside bubblewrap: one private temp dir per command, the bwrap command line from sandbox-plan.ts, and
// what a refused write looks like afterwards — the places the command could not write for the sandbox's reason,
// each a candidate for one re-run with it writable (after approval; never a denied place).
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ResolvedBoundary } from './boundary.js';
import { isInside, realpathLoose } from './path-resolve.js';
import { runInGroup, type GroupRunOptions, type GroupRunResult } from './process-group.js';
import { bwrapArgs, writableAllowed } from './sandbox-plan.js';
import { probeSandbox, type SandboxSupport } from './sandbox-probe.js';

/** The per-run sandbox settings (`[security] sandbox`, `sandbox_writable`) and the probe that says whether it works. */
export interface ShellSandbox {
  mode: 'auto' | 'off';
  /** `[security] sandbox_writable`, `~` expanded. */
  writable: readonly string[];
  /** The probe's answer (null: off, or bubblewrap cannot run here). */
  support(): Promise<Extract<SandboxSupport, { ok: true }> | null>;
  active(): Promise<boolean>;
}

/** The run's sandbox from `[security] sandbox` / `sandbox_writable`; bubblewrap is looked up on the shell's PATH. */
export function shellSandbox(mode: 'auto' | 'off', writable: readonly string[], shellEnv: NodeJS.ProcessEnv, home: string): ShellSandbox {
  const expanded = writable.map((w) => (w === '~' ? home : w.startsWith('~/') ? join(home, w.slice(2)) : resolve(w)));
  const support = async (): Promise<Extract<SandboxSupport, { ok: true }> | null> => {
    if (mode === 'off') return null;
    const s = await probeSandbox(shellEnv);
    return s.ok ? s : null;
  };
  return { mode, writable: expanded, support, active: async () => (await support()) !== null };
}

/** Caches package managers write to: a refused write below one offers the cache itself (made if missing). */
export const USUAL_CACHES: readonly string[] = ['.npm', '.cache', '.yarn', '.pnpm-store', '.local/share/pnpm', '.cargo', '.rustup', 'go', '.m2', '.gradle', '.bun', '.deno', '.nuget'];

export interface SandboxedRun {
  result: GroupRunResult;
  /** Places a write was refused in, each offerable for a re-run (outside the denied zones). */
  refused: string[];
  /** Denied places the command reached for (hidden by the sandbox): never made writable or visible. */
  deniedPlaces: string[];
}

export interface SandboxRunInput extends Omit<GroupRunOptions, 'argv'> {
  support: Extract<SandboxSupport, { ok: true }>;
  workspace: string;
  boundary: ResolvedBoundary;
  home: string;
  writable: readonly string[];
}

/** The paths an output names as refused: `…: Read-only file system`, `EROFS: …, open '…'` (`readOnly`), and EACCES
 *  (a masked file answers that). */
export function refusedPaths(output: string, cwd: string): { path: string; readOnly: boolean }[] {
  const out = new Map<string, boolean>();
  for (const line of output.split('\n')) {
    const readOnly = /read-only file system|EROFS/i.test(line);
    if (!readOnly && !/Permission denied|EACCES/.test(line)) continue;
    const quoted = [...line.matchAll(/['‘"`]([^'’"`\n]+)['’"`]/g)].map((m) => m[1] ?? '');
    const bare = /(?:^|: )(?:line \d+: )?([^:\n]+): (?:Read-only file system|Permission denied)/.exec(line)?.[1];
    const p = quoted.find((q) => q.includes('/') || q.startsWith('.')) ?? bare?.trim();
    if (p !== undefined && p !== '') out.set(resolve(cwd, p), readOnly || out.get(resolve(cwd, p)) === true);
  }
  return [...out].map(([path, readOnly]) => ({ path, readOnly }));
}

/** Where to make a refused path writable: a usual cache's root, else the nearest existing directory holding it. */
export function writableFor(path: string, home: string): string {
  for (const c of USUAL_CACHES) {
    const root = join(home, c);
    if (isInside(root, path)) return root;
  }
  for (let d = path; ; d = dirname(d)) {
    try {
      if (statSync(d).isDirectory()) return d;
    } catch {
      // not there yet: its parent
    }
    if (d === dirname(d)) return d;
  }
}

export async function runSandboxed(o: SandboxRunInput): Promise<SandboxedRun> {
  const tmp = mkdtempSync(join(tmpdir(), 'yagent-sh-'));
  try {
    for (const w of o.writable) if (USUAL_CACHES.some((c) => join(o.home, c) === w)) mkdirSync(w, { recursive: true });
    const argv = [o.support.bwrap, ...bwrapArgs({ workspace: o.workspace, cwd: o.cwd, tmp, writable: o.writable, boundary: o.boundary, home: o.home, flags: o.support.flags }, ['bash', '-c', o.command])];
    const result = await runInGroup({ ...o, env: { ...o.env, TMPDIR: tmp }, argv });
    const ws = realpathLoose(o.workspace);
    const refused = new Set<string>();
    const deniedPlaces = new Set<string>();
    for (const { path, readOnly } of refusedPaths(result.output, o.cwd)) {
      const real = realpathLoose(path);
      if (isInside(ws, real) || isInside(realpathLoose(tmp), real)) continue; // not the sandbox's doing
      if (o.boundary.denied(real, 'read') !== null) deniedPlaces.add(real);
      else if (readOnly) {
        const place = writableFor(real, o.home);
        if (writableAllowed(place, o.boundary) && !o.writable.includes(place)) refused.add(place);
      }
    }
    return { result, refused: [...refused], deniedPlaces: [...deniedPlaces] };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
