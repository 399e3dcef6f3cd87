// Key names the model may press (`Enter`, `Tab`, `Control+a`, `Shift+Tab`, one character) → CDP key events.
import { BrowserError } from './errors.js';

export interface KeyEvent {
  key: string;
  code: string;
  keyCode: number;
  /** Typed text (printable keys and Enter without Ctrl/Alt/Meta). */
  text?: string;
  /** Alt=1, Control=2, Meta=4, Shift=8 (CDP's bitmask). */
  modifiers: number;
}

/** Named keys: their DOM `code` is their name; the key codes are the Windows virtual-key codes CDP wants. */
const NAMED: Readonly<Record<string, { keyCode: number; text?: string }>> = {
  Enter: { keyCode: 13, text: '\r' },
  Tab: { keyCode: 9 },
  Escape: { keyCode: 27 },
  Backspace: { keyCode: 8 },
  Delete: { keyCode: 46 },
  ArrowUp: { keyCode: 38 },
  ArrowDown: { keyCode: 40 },
  ArrowLeft: { keyCode: 37 },
  ArrowRight: { keyCode: 39 },
  Home: { keyCode: 36 },
  End: { keyCode: 35 },
  PageUp: { keyCode: 33 },
  PageDown: { keyCode: 34 },
  Space: { keyCode: 32, text: ' ' },
};

const MODIFIERS: Readonly<Record<string, number>> = { alt: 1, control: 2, ctrl: 2, meta: 4, cmd: 4, shift: 8 };

export const KEY_NAMES: readonly string[] = Object.keys(NAMED);

/** Parses `Mod+Mod+Key`; an unknown name is a BrowserError listing what exists. */
export function parseKey(spec: string): KeyEvent {
  // modifier words each followed by "+", then the key itself (which may be "+")
  const m = /^((?:[A-Za-z]+\+)*)(.+)$/.exec(spec.trim());
  if (!m) throw badKey(spec);
  const parts = (m[1] ?? '').split('+').filter((p) => p !== '');
  const last = m[2] ?? '';
  let modifiers = 0;
  for (const mod of parts) {
    const bit = MODIFIERS[mod.toLowerCase()];
    if (bit === undefined) throw badKey(spec);
    modifiers |= bit;
  }
  const named = Object.entries(NAMED).find(([name]) => name.toLowerCase() === last.toLowerCase());
  const typing = (modifiers & 0b0111) === 0; // Ctrl/Alt/Meta chords type nothing
  if (named) {
    const [key, k] = named;
    return { key: key === 'Space' ? ' ' : key, code: key, keyCode: k.keyCode, modifiers, ...(k.text !== undefined && typing ? { text: k.text } : {}) };
  }
  if ([...last].length !== 1) throw badKey(spec);
  const upper = last.toUpperCase();
  const isLetter = /^[A-Z]$/.test(upper);
  const isDigit = /^[0-9]$/.test(last);
  const code = isLetter ? `Key${upper}` : isDigit ? `Digit${last}` : '';
  const keyCode = isLetter || isDigit ? upper.charCodeAt(0) : 0;
  const key = modifiers & 8 && isLetter ? upper : last;
  return { key, code, keyCode, modifiers, ...(typing ? { text: key } : {}) };
}

function badKey(spec: string): BrowserError {
  return new BrowserError('bad_key', `unknown key "${spec}": use one character, or ${KEY_NAMES.join(', ')}, optionally with Control+, Shift+, Alt+ or Meta+`);
}
