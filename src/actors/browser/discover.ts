// Which Chromium/Chrome the Browser agent drives: `[browser] executable`, else the first known name on PATH.
// Only absolute PATH entries count: a relative one would depend on the process's cwd (seeds pitfall 8).
import { delimiter, isAbsolute } from 'node:path';
import { findCommand } from '../../runtime/find-command.js';

export const BROWSER_CANDIDATES: readonly string[] = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

export type BrowserAvailability = { ok: true; executable: string } | { ok: false; reason: string };

export interface BrowserConfig {
  enabled: boolean;
  /** '' = look on PATH; an absolute path, or a bare command name (normalise.ts refuses relative paths). */
  executable: string;
}

const FIX = 'install Chromium (Debian/Ubuntu: `apt-get install chromium`) or set `[browser] executable = "/path/to/chrome"` in the yagent config';

/** PATH without its relative entries (what they find would depend on the cwd). */
function absolutePath(pathVar: string | undefined): string {
  return (pathVar ?? '').split(delimiter).filter((d) => isAbsolute(d)).join(delimiter);
}

/** Decided once per worker; a missing browser is a reason with its fix, never a crash. */
export function discoverBrowser(cfg: BrowserConfig, env: Readonly<Record<string, string | undefined>>): BrowserAvailability {
  if (!cfg.enabled) return { ok: false, reason: 'the Browser agent is turned off by `[browser] enable = false` in the yagent config' };
  const exe = cfg.executable;
  const path = absolutePath(env.PATH);
  if (exe !== '') {
    const found = findCommand(exe, path);
    if (found) return { ok: true, executable: found };
    return { ok: false, reason: `\`[browser] executable = "${exe}"\` is not an executable file${exe.includes('/') ? '' : ' on PATH'}; fix the path, or remove the key to use chromium / google-chrome from PATH` };
  }
  for (const name of BROWSER_CANDIDATES) {
    const found = findCommand(name, path);
    if (found) return { ok: true, executable: found };
  }
  return { ok: false, reason: `no Chromium or Chrome was found (looked for ${BROWSER_CANDIDATES.join(', ')} on PATH); to fix it, ${FIX}` };
}
