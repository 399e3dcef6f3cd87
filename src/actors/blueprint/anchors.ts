// Anchors of blueprint prose: each path an entry claims, with the content hash it had when the entry was folded. An
// entry is fresh (every anchor unchanged), stale (all there, one changed: the text may no longer hold) or orphaned (an
// anchor is gone); an orphan is marked with the day it was first seen gone and ages out ORPHAN_TTL_MS later.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import { pathClaim } from './claims.js';

/** An orphaned entry is dropped this long after it was first seen orphaned (the seeds' 90 days). */
export const ORPHAN_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** The hash recorded for a directory anchor: only its existence is checked. */
const DIR = 'dir';
const WORD_RE = /[A-Za-z0-9_.@~\-/]+/g;
/** `- text <!-- anchors a.ts=hash b/=dir; orphaned 2026-12-02T00:00:00.000Z -->` (the comment never reaches a model). */
const META_RE = /\s*<!-- anchors ([^;]*?)(?:; orphaned (\S+))? -->$/;

export type AnchorState = 'fresh' | 'stale' | 'orphaned';

export interface Entry {
  text: string;
  /** path → content hash when folded ('dir' for a directory). */
  anchors: Map<string, string>;
  /** ms since the epoch when the entry was first seen orphaned (undefined: not orphaned). */
  orphanedSince?: number | undefined;
}

export interface EntryView extends Entry {
  state: AnchorState;
  /** The anchors behind a stale or orphaned state. */
  why: string[];
}

export function parseEntry(line: string): Entry {
  const m = META_RE.exec(line);
  if (!m) return { text: line.trim(), anchors: new Map() };
  const anchors = new Map<string, string>();
  for (const pair of (m[1] ?? '').split(' ').filter((p) => p !== '')) {
    const at = pair.lastIndexOf('=');
    if (at > 0) anchors.set(pair.slice(0, at), pair.slice(at + 1));
  }
  const since = m[2] !== undefined ? Date.parse(m[2]) : NaN;
  return { text: line.slice(0, m.index).trim(), anchors, orphanedSince: Number.isFinite(since) ? since : undefined };
}

export function formatEntry(e: Entry): string {
  if (e.anchors.size === 0) return e.text;
  const pairs = [...e.anchors].map(([p, h]) => `${p}=${h}`).join(' ');
  const orphan = e.orphanedSince !== undefined ? `; orphaned ${new Date(e.orphanedSince).toISOString()}` : '';
  return `${e.text} <!-- anchors ${pairs}${orphan} -->`;
}

/** The content hash of a workspace path now: 'dir', a 12-hex file hash, or null when it is not there. */
function hashOf(root: string, rel: string): string | null {
  try {
    const p = join(root, rel);
    if (statSync(p).isDirectory()) return DIR;
    return nodeCrypto().createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 12);
  } catch {
    return null;
  }
}

function topLevel(root: string): Set<string> {
  try {
    return new Set(readdirSync(root));
  } catch {
    return new Set();
  }
}

/** A new entry's anchors: the path claims in its text, hashed as they are now (claims.ts already checked they exist). */
export function anchorEntry(root: string, text: string): Entry {
  const top = topLevel(root);
  const anchors = new Map<string, string>();
  for (const word of text.match(WORD_RE) ?? []) {
    const claim = pathClaim(word, top);
    if (claim === null) continue;
    const rel = normalize(claim).replace(/\/$/, '');
    const h = hashOf(root, rel);
    if (h !== null) anchors.set(rel, h);
  }
  // the anchors live in an HTML comment on the entry's line: an entry's own comment markers would forge or hide them
  return { text: text.replace(/\s*(?:<!--|-->)\s*/g, ' ').trim(), anchors };
}

/** The state of an entry's anchors in the workspace as it is now. */
export function stateOf(root: string, e: Entry): EntryView {
  const gone: string[] = [];
  const changed: string[] = [];
  for (const [p, h] of e.anchors) {
    const now = hashOf(root, p);
    if (now === null) gone.push(p);
    else if (now !== h) changed.push(p);
  }
  if (gone.length > 0) return { ...e, state: 'orphaned', why: gone };
  return { ...e, state: changed.length > 0 ? 'stale' : 'fresh', why: changed };
}

/** Marks newly orphaned entries with `now`, unmarks the ones whose anchors came back, drops those orphaned longer than
 *  ORPHAN_TTL_MS. `changed` says whether the stored prose must be rewritten. */
export function age(root: string, entries: readonly Entry[], now: number): { kept: EntryView[]; expired: EntryView[]; changed: boolean } {
  const kept: EntryView[] = [];
  const expired: EntryView[] = [];
  let changed = false;
  for (const e of entries) {
    const v = stateOf(root, e);
    if (v.state !== 'orphaned') {
      if (v.orphanedSince !== undefined) changed = true;
      kept.push({ ...v, orphanedSince: undefined });
    } else if (v.orphanedSince === undefined) {
      changed = true;
      kept.push({ ...v, orphanedSince: now });
    } else if (now - v.orphanedSince >= ORPHAN_TTL_MS) {
      changed = true;
      expired.push(v);
    } else kept.push(v);
  }
  return { kept, expired, changed };
}

/** One entry as an agent reads it: the text and, unless fresh, what happened to its anchors. */
export function renderEntry(v: EntryView): string {
  if (v.state === 'stale') return `- ${v.text} (stale anchor: ${v.why.join(', ')} changed since this was written)`;
  if (v.state === 'orphaned') {
    const since = v.orphanedSince !== undefined ? ` since ${new Date(v.orphanedSince).toISOString().slice(0, 10)}` : '';
    return `- ${v.text} (orphaned: ${v.why.join(', ')} no longer exists${since}; dropped after 90 days)`;
  }
  return `- ${v.text}`;
}
