// The terminal's input as blessed reads it, with the new-line keys blessed cannot see made visible: blessed splits
// Alt+Enter (ESC CR) into Escape + Return — Escape cleared the input box — and does not parse the CSI-u /
// modifyOtherKeys forms of Shift/Alt+Enter at all (their digits were typed into the box). Each of those
// sequences becomes one private-use character here, which `screen.ts` reports as the key 'M-enter' / 'S-enter';
// a bracketed paste is framed by 'paste-start' / 'paste-end' keys, its line breaks typed as text (not Enter).
import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** The character each translated key arrives as (never typed: Unicode private use area). */
export const KEY_CHARS: Readonly<Record<string, string>> = { '\uE000': 'M-enter', '\uE001': 'S-enter', '\uE002': 'paste-start', '\uE003': 'paste-end' };

const TRANSLATE: readonly [RegExp, string][] = [
  // Alt+Enter: ESC CR (xterm, tmux, iTerm2, GNOME Terminal…), CSI-u (kitty, foot, WezTerm) and modifyOtherKeys
  [/\x1b\r|\x1b\[13;3u|\x1b\[27;3;13~/g, '\uE000'],
  // Shift+Enter: CSI-u and modifyOtherKeys (a terminal without them sends a plain CR, which is Enter)
  [/\x1b\[13;2u|\x1b\[27;2;13~/g, '\uE001'],
];

/** Bracketed paste (enabled by `screen.ts`): the terminal wraps pasted text in these, so its new lines are text. */
export const PASTE_ON = '\x1b[?2004h';
export const PASTE_OFF = '\x1b[?2004l';
const PASTE = /\x1b\[200~([\s\S]*?)(\x1b\[201~|$)/g;

/** Inside a paste: one CR per line break (blessed reports CR as Enter, which the app inserts while pasting) and
 *  tabs as spaces (the input box has no tab stops). */
function pasted(text: string): string {
  return text.replace(/\r\n|\n/g, '\r').replace(/\t/g, '  ');
}

export function translateKeys(s: string, state: { pasting: boolean } = { pasting: false }): string {
  let rest = s;
  let head = '';
  if (state.pasting) {
    // a paste that started in an earlier read: up to its end marker, or all of this read
    const end = rest.indexOf('\x1b[201~');
    head = pasted(end === -1 ? rest : rest.slice(0, end)) + (end === -1 ? '' : '\uE003');
    rest = end === -1 ? '' : rest.slice(end + 6);
    state.pasting = end === -1;
  }
  let out = '';
  let last = 0;
  for (const m of rest.matchAll(PASTE)) {
    out += keys(rest.slice(last, m.index)) + '\uE002' + pasted(m[1] ?? '') + (m[2] ? '\uE003' : '');
    state.pasting = !m[2];
    last = m.index + m[0].length;
  }
  return head + out + keys(rest.slice(last));
}

function keys(s: string): string {
  let out = s;
  for (const [re, ch] of TRANSLATE) out = out.replace(re, ch);
  return out;
}

type TtyInput = NodeJS.ReadableStream & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (mode: boolean) => unknown };

/** A stream blessed can own (raw mode and TTY-ness are the source's); `close()` stops reading the source, so a
 *  quit leaves nothing holding the process open. A sequence is translated when it arrives in one read, as a
 *  terminal writes a key; a lone ESC is never held back (Escape must act at once). */
export function translatedInput(src: TtyInput): { stream: TtyInput; close(): void } {
  const out = new PassThrough() as PassThrough & TtyInput;
  const decoder = new StringDecoder('utf8');
  const state = { pasting: false };
  const onData = (chunk: Buffer | string): void => {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (text !== '') out.write(translateKeys(text, state));
  };
  src.on('data', onData);
  Object.assign(out, {
    isTTY: src.isTTY === true,
    isRaw: src.isRaw === true,
    setRawMode: (mode: boolean) => {
      src.setRawMode?.(mode);
      out.isRaw = mode;
      return out;
    },
  });
  return {
    stream: out,
    close: () => {
      src.removeListener('data', onData);
      src.pause();
    },
  };
}
