// Note file names `YYYYMMDDTHHMMSSZ_<rand4>-<pid>-<seq6>.md`: unique by counter, not by luck (seed rule 13).
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import { compactUtc, sanitizeAgent } from '../data-paths.js';

export type RandomFn = () => string;

/** Two random bytes as 4 hex chars: only covers "pid reused within the same second". */
export const noteRandom: RandomFn = () => nodeCrypto().randomBytes(2).toString('hex');

let noteSeq = 0;

/** In-process uniqueness: monotonic, fixed width, so name order is still time order within a second. */
function nextSeq(): string {
  noteSeq = (noteSeq + 1) % 1_000_000;
  return String(noteSeq).padStart(6, '0');
}

export function generateNoteStem(nowMs: number, rand: RandomFn = noteRandom, pid = process.pid): string {
  return `${compactUtc(nowMs)}_${rand()}-${pid}-${nextSeq()}`;
}

export const NOTE_EXT = '.md';
export const NOTE_STEM_RE = /^(\d{8}T\d{6}Z)_([0-9a-f]{4})-(\d+)-(\d{6})$/;
/** Stems written by older versions (v1) may not follow the current shape; any safe name is readable. */
const SAFE_STEM_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export interface NoteRef {
  agent: string;
  stem: string;
}

/** Wire form of a ref is `{agent}/{stem}` (mirror of formatNoteRef). */
export function formatNoteRef(agent: string, stem: string): string {
  return `${sanitizeAgent(agent)}/${stem}`;
}

/** Parses `{agent}/{stem}` (a trailing `.md` tolerated); null for anything that could leave the board. */
export function parseNoteRef(ref: string): NoteRef | null {
  const m = /^([^/]+)\/([^/]+)$/.exec(ref.trim().replace(/^note:/, ''));
  if (!m) return null;
  const agent = m[1];
  const stem = m[2].endsWith(NOTE_EXT) ? m[2].slice(0, -NOTE_EXT.length) : m[2];
  if (sanitizeAgent(agent) !== agent || !SAFE_STEM_RE.test(stem) || stem.includes('..')) return null;
  return { agent, stem };
}

/** Creation time encoded in a current-shape stem, else null. */
export function stemTime(stem: string): string | null {
  const m = NOTE_STEM_RE.exec(stem);
  if (!m) return null;
  const s = m[1];
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`;
}

/** Time-order key of a note file name: timestamp, then the in-process counter (the random part sits before
 *  the counter in the name, so plain string order would let it reorder notes written within one second).
 *  Plain slicing, no regex: the index sorts every name on the board on each call. */
export function noteSortKey(fileOrStem: string): string {
  const stem = fileOrStem.endsWith(NOTE_EXT) ? fileOrStem.slice(0, -NOTE_EXT.length) : fileOrStem;
  if (stem.length >= 31 && stem.charCodeAt(8) === 84 /* T */ && stem.charCodeAt(15) === 90 /* Z */ && stem.charCodeAt(16) === 95 /* _ */) {
    return `${stem.slice(0, 16)}~${stem.slice(-6)}~${stem}`;
  }
  return stem;
}
