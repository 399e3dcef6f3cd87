// Key bindings: action → keys. `[tui.keybindings]` REPLACES an action's defaults (never adds aliases; pitfall 29).
import { TUI_ACTIONS, type TuiAction } from '../../src/runtime/config/keybindings.js';

export const ACTIONS = TUI_ACTIONS;
export type Action = TuiAction;
export type Bindings = Record<Action, string[]>;

export const DEFAULT_BINDINGS: Bindings = {
  send: ['enter'],
  newline: ['M-enter', 'S-enter', 'linefeed'],
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
  tree: ['C-t'],
};

/** The defaults with the configured actions replaced (config validated them at load). */
export function resolveBindings(overrides: Partial<Record<Action, string[]>>): Bindings {
  return { ...DEFAULT_BINDINGS, ...overrides };
}

/** The action a pressed key (blessed's `key.full`) triggers in this context, if any. */
export function actionFor(b: Bindings, full: string, among: readonly Action[]): Action | null {
  for (const a of among) if (b[a].includes(full)) return a;
  return null;
}

/** A key as users read it: `escape` → Esc, `C-p` → Ctrl-P, `M-x` → Alt-x; other names as blessed spells them. */
export function keyLabel(key: string | undefined): string {
  if (key === undefined) return '(unbound)';
  if (key === 'escape') return 'Esc';
  if (key === 'enter') return 'Enter';
  if (/^C-.$/.test(key)) return `Ctrl-${key.slice(2).toUpperCase()}`;
  if (key.startsWith('M-')) return `Alt-${key.slice(2)}`;
  if (key.startsWith('S-')) return `Shift-${key.slice(2)}`;
  return key;
}
