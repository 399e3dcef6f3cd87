// `[tui.keybindings]`: action → keys, validated at load; each listed action REPLACES its default keys (pitfall 29).
import { ConfigError } from './errors.js';

export const TUI_ACTIONS = ['send', 'newline', 'cancel', 'pause', 'history_prev', 'history_next', 'scroll_up', 'scroll_down', 'approve_once', 'approve_session', 'approve_project', 'deny', 'tree'] as const;
export type TuiAction = (typeof TUI_ACTIONS)[number];

const FUNCTION_KEYS = Array.from({ length: 12 }, (_, i) => `f${i + 1}`);
/** Keys whose escape sequences carry any modifier (xterm's CSI `1;<mod>`): C-, M- and S- combine freely. */
const MODIFIABLE = new Set(['up', 'down', 'left', 'right', 'home', 'end', 'pageup', 'pagedown', 'insert', 'delete', ...FUNCTION_KEYS]);
/** The other named keys and the modifier prefixes a terminal can send with them (blessed's `key.full`; Alt and
 *  Shift+Enter through bin/tui/key-input.ts). Ctrl+Enter, Ctrl+Tab and the like reach no program: refused. */
const NAMED: Readonly<Record<string, readonly string[]>> = {
  enter: ['', 'M-', 'S-'],
  linefeed: [''],
  escape: ['', 'M-'],
  tab: ['', 'S-'],
  backspace: ['', 'M-'],
  space: ['', 'M-'],
};
/** Ctrl+H/I/J/M are Backspace, Tab, Ctrl-J (linefeed) and Enter: a terminal sends the same byte. */
const CTRL_ALIASES = new Set(['h', 'i', 'j', 'm']);

/** The key as blessed reports it (`C-M-S-` order, a capital letter as `S-` + the letter), or null when no terminal
 *  can send it — a binding nobody can press would make its action unreachable (seeds pitfalls 29, 31). */
export function canonicalKey(k: string): string | null {
  const m = /^((?:[CMS]-)*)(.+)$/.exec(k);
  if (!m) return null;
  const mods = new Set((m[1] ?? '').split('-').filter((x) => x !== ''));
  if (mods.size * 2 !== (m[1] ?? '').length) return null; // a modifier written twice
  let name = m[2] ?? '';
  if (/^[A-Z]$/.test(name)) {
    if (mods.has('S')) return null;
    mods.add('S');
    name = name.toLowerCase();
  }
  const prefix = `${mods.has('C') ? 'C-' : ''}${mods.has('M') ? 'M-' : ''}${mods.has('S') ? 'S-' : ''}`;
  const ok = MODIFIABLE.has(name)
    ? true
    : NAMED[name] !== undefined
      ? NAMED[name].includes(prefix)
      : /^[a-z]$/.test(name)
        ? ['', 'M-', 'S-', 'M-S-'].includes(prefix) || (prefix === 'C-' && !CTRL_ALIASES.has(name))
        : /^[0-9]$/.test(name)
          ? prefix === '' || prefix === 'M-'
          : name.length === 1 && name >= '!' && name <= '~' && prefix === '';
  return ok ? prefix + name : null;
}

/** The overrides as given (only listed actions); an unknown action or a malformed key is a ConfigError (exit 2). */
export function parseKeybindings(raw: Record<string, string | string[]> | undefined, path: string): Partial<Record<TuiAction, string[]>> {
  const out: Partial<Record<TuiAction, string[]>> = {};
  for (const [action, value] of Object.entries(raw ?? {})) {
    const where = `${path}: [tui.keybindings] ${action}`;
    if (!(TUI_ACTIONS as readonly string[]).includes(action)) throw new ConfigError(`unknown TUI action "${action}"`, where, `use one of: ${TUI_ACTIONS.join(', ')}`);
    const keys = Array.isArray(value) ? value : [value];
    if (keys.length === 0) throw new ConfigError(`no key for "${action}"`, where, 'give at least one key, e.g. "C-p"');
    out[action as TuiAction] = keys.map((k) => {
      const key = canonicalKey(k);
      if (key === null) throw new ConfigError(`"${k}" is not a key a terminal sends`, where, 'write keys like "enter", "M-enter", "C-p", "S-tab", "f2", "C-up" or one character (Ctrl+Enter, Ctrl+H/I/J/M and Ctrl/Alt with punctuation reach no program)');
      return key;
    });
  }
  return out;
}
