// Which Chromium/Chrome the Browser agent drives: `[browser] executable`, else the first known name on PATH.
// Only absolute PATH entries count: a relative one would depend on the process's cwd (seeds pitfall 8).
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export const BROWSER_CANDIDATES: readonly string[] = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

export type BrowserAvailability = { ok: true; executable: string } | { ok: false; reason: string };

export interface BrowserConfig {
  enabled: boolean;
  /** '' = look on PATH; an absolute path, or a bare command name (normalise.ts refuses relative paths). */
  executable: string;
}

const FIX = 'install Chromium (Debian/Ubuntu: `apt-get install chromium`) or set `[browser] executable = "/path/to/chrome"` in the yagent config';

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the absolute entries of `pathVar`, or null. */
export function onPath(name: string, pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(':')) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Decided once per worker; a missing browser is a reason with its fix, never a crash. */
export function discoverBrowser(cfg: BrowserConfig, env: Readonly<Record<string, string | undefined>>): BrowserAvailability {
  if (!cfg.enabled) return { ok: false, reason: 'the Browser agent is turned off by `[browser] enable = false` in the yagent config' };
  const exe = cfg.executable;
  if (exe !== '') {
    const found = exe.includes('/') ? (isExecutableFile(exe) ? exe : null) : onPath(exe, env.PATH);
    if (found) return { ok: true, executable: found };
    return { ok: false, reason: `\`[browser] executable = "${exe}"\` is not an executable file${exe.includes('/') ? '' : ' on PATH'}; fix the path, or remove the key to use chromium / google-chrome from PATH` };
  }
  for (const name of BROWSER_CANDIDATES) {
    const found = onPath(name, env.PATH);
    if (found) return { ok: true, executable: found };
  }
  return { ok: false, reason: `no Chromium or Chrome was found (looked for ${BROWSER_CANDIDATES.join(', ')} on PATH); to fix it, ${FIX}` };
}
