// The input box's editing keys (a shell line editor's, which users already have in their fingers). They are
// fixed, not `[tui.keybindings]` actions: a configured action's key wins, because the app asks for actions first.
import type { InputBuffer } from './input.js';

const EDIT: Readonly<Record<string, (b: InputBuffer) => void>> = {
  left: (b) => b.left(),
  right: (b) => b.right(),
  home: (b) => b.home(),
  end: (b) => b.end(),
  'C-a': (b) => b.home(),
  'C-e': (b) => b.end(),
  'C-b': (b) => b.left(),
  'C-f': (b) => b.right(),
  'C-u': (b) => b.killBefore(),
  'C-k': (b) => b.killAfter(),
  'C-w': (b) => b.killWord(),
  'M-backspace': (b) => b.killWord(),
  backspace: (b) => b.backspace(),
  delete: (b) => b.deleteForward(),
  'C-d': (b) => b.deleteForward(),
};

/** Applies an editing key or types a printable character; any other key does nothing. */
export function editInput(b: InputBuffer, ch: string | undefined, full: string): void {
  const edit = EDIT[full];
  if (edit) edit(b);
  else if (ch !== undefined && ch.length > 0 && !full.startsWith('C-') && !full.startsWith('M-') && ch >= ' ') b.insert(ch);
}
