// `[tui.keybindings]`: action → keys, validated at load; each listed action REPLACES its default keys (pitfall 29).
import { ConfigError } from './errors.js';

export const TUI_ACTIONS = ['send', 'newline', 'cancel', 'pause', 'history_prev', 'history_next', 'scroll_up', 'scroll_down', 'approve_once', 'approve_session', 'approve_project', 'deny', 'tree'] as const;
export type TuiAction = (typeof TUI_ACTIONS)[number];

const NAMED = new Set(['enter', 'linefeed', 'escape', 'tab', 'backspace', 'delete', 'up', 'down', 'left', 'right', 'home', 'end', 'pageup', 'pagedown', 'insert', 'space', ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`)]);
/** `C-x`, `M-enter`, `S-tab`, `f2`, a single printable character (blessed's key names). */
const KEY_RE = /^((?:[CMS]-)*)(.+)$/;

export function isValidKey(k: string): boolean {
  const m = KEY_RE.exec(k);
  if (!m) return false;
  const name = m[2] ?? '';
  return NAMED.has(name) || (name.length === 1 && name >= '!' && name <= '~');
}

/** The overrides as given (only listed actions); an unknown action or a malformed key is a ConfigError (exit 2). */
export function parseKeybindings(raw: Record<string, string | string[]> | undefined, path: string): Partial<Record<TuiAction, string[]>> {
  const out: Partial<Record<TuiAction, string[]>> = {};
  for (const [action, value] of Object.entries(raw ?? {})) {
    const where = `${path}: [tui.keybindings] ${action}`;
    if (!(TUI_ACTIONS as readonly string[]).includes(action)) throw new ConfigError(`unknown TUI action "${action}"`, where, `use one of: ${TUI_ACTIONS.join(', ')}`);
    const keys = Array.isArray(value) ? value : [value];
    if (keys.length === 0) throw new ConfigError(`no key for "${action}"`, where, 'give at least one key, e.g. "C-p"');
    for (const k of keys) if (!isValidKey(k)) throw new ConfigError(`"${k}" is not a key`, where, 'write keys like "enter", "C-p", "M-enter", "f2" or one character');
    out[action as TuiAction] = keys;
  }
  return out;
}
