// Key bindings: action → keys. `[tui.keybindings]` REPLACES an action's defaults (never adds aliases; pitfall 29).

export const ACTIONS = ['send', 'newline', 'cancel', 'pause', 'history_prev', 'history_next', 'scroll_up', 'scroll_down', 'approve_once', 'approve_session', 'approve_project', 'deny'] as const;
export type Action = (typeof ACTIONS)[number];
export type Bindings = Record<Action, string[]>;

export const DEFAULT_BINDINGS: Bindings = {
  send: ['enter'],
  newline: ['M-enter', 'linefeed'],
  cancel: ['escape', 'C-c'],
  pause: ['C-p'],
  history_prev: ['up'],
  history_next: ['down'],
  scroll_up: ['pageup'],
  scroll_down: ['pagedown'],
  approve_once: ['y'],
  approve_session: ['s'],
  approve_project: ['p'],
  deny: ['n'],
};

const NAMED = new Set(['enter', 'linefeed', 'escape', 'tab', 'backspace', 'delete', 'up', 'down', 'left', 'right', 'home', 'end', 'pageup', 'pagedown', 'insert', 'space', ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`)]);
/** `C-x`, `M-enter`, `S-tab`, `f2`, a single printable character. */
const KEY_RE = /^((?:[CMS]-)*)(.+)$/;

export function isValidKey(k: string): boolean {
  const m = KEY_RE.exec(k);
  if (!m) return false;
  const name = m[2] ?? '';
  return NAMED.has(name) || (/^[a-z0-9]$/.test(name) && m[1] !== undefined) || (name.length === 1 && name >= '!' && name <= '~');
}

/** Applies `[tui.keybindings]`; an unknown action or a malformed key is an error naming it (exit 2 at load). */
export function resolveBindings(overrides: Record<string, string | string[]> | undefined): Bindings {
  const out: Bindings = { ...DEFAULT_BINDINGS };
  for (const [action, value] of Object.entries(overrides ?? {})) {
    if (!(ACTIONS as readonly string[]).includes(action)) throw new Error(`[tui.keybindings] unknown action "${action}" (known: ${ACTIONS.join(', ')})`);
    const keys = Array.isArray(value) ? value : [value];
    if (keys.length === 0) throw new Error(`[tui.keybindings] ${action}: at least one key`);
    for (const k of keys) if (!isValidKey(k)) throw new Error(`[tui.keybindings] ${action}: "${k}" is not a key (examples: "enter", "C-p", "M-enter", "f2")`);
    out[action as Action] = keys;
  }
  return out;
}

/** The action a pressed key (blessed's `key.full`) triggers in this context, if any. */
export function actionFor(b: Bindings, full: string, among: readonly Action[]): Action | null {
  for (const a of among) if (b[a].includes(full)) return a;
  return null;
}
