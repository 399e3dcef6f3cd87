// Path claims in blueprint prose: a word that names a path (a known top-level entry of the workspace, or a file name
// with an extension) must exist, or the entry is dropped with its reason. Ordinary prose with slashes ("read/write",
// "TCP/IP", "读/写", a shortened "actors/agents") is not a path claim and is never dropped (pitfall 42).
import { existsSync, readdirSync } from 'node:fs';
import { join, normalize } from 'node:path';

/** Words that may be paths: at least one slash, or a dotted file name; quotes, brackets, trailing punctuation and a
 *  `:line` suffix stripped. */
const WORD_RE = /[A-Za-z0-9_.@~\-/]+/g;
const FILE_EXT = /\.(?:[cm]?[jt]sx?|py|go|rs|java|rb|c|h|cc|cpp|hpp|md|json|toml|ya?ml|sh|sql|html|css)$/;

export interface ClaimCheck {
  kept: string[];
  dropped: { entry: string; reason: string }[];
}

function topLevel(root: string): Set<string> {
  try {
    return new Set(readdirSync(root));
  } catch {
    return new Set();
  }
}

/** The path this word claims, or null when it is not a path claim (its shape alone never decides a drop). */
export function pathClaim(word: string, top: ReadonlySet<string>): string | null {
  const w = word.replace(/:\d+(?:-\d+)?$/, '').replace(/[.,;]+$/, '').replace(/^\.\//, '');
  if (w === '' || w.startsWith('/') || w.includes('://')) return null;
  const first = w.split('/')[0] ?? '';
  // a path claim starts at a real top-level entry ("src/…", "package.json"): "read/write" or "actors/agents" do not
  const segments0 = w.split('/').filter((x) => x !== '');
  // a slash path ending in a source or document file name claims a file even under a directory that is not there
  if (!top.has(first)) return segments0.length >= 2 && FILE_EXT.test(segments0[segments0.length - 1] ?? '') ? segments0.join('/') : null;
  const segments = w.split('/').filter((x) => x !== '');
  // "test/build" (a top-level name, then a word) is prose; a file name, a trailing slash or a deep path is a claim
  const claims = /\.[A-Za-z0-9]{1,8}$/.test(segments[segments.length - 1] ?? '') || w.endsWith('/') || segments.length >= 3;
  return claims ? segments.join('/') : null;
}

export function checkClaims(root: string, entries: readonly string[]): ClaimCheck {
  const top = topLevel(root);
  const out: ClaimCheck = { kept: [], dropped: [] };
  for (const entry of entries) {
    const missing: string[] = [];
    for (const word of entry.match(WORD_RE) ?? []) {
      const claim = pathClaim(word, top);
      if (claim === null) continue;
      const rel = normalize(claim);
      if (rel.startsWith('..') || !existsSync(join(root, rel))) missing.push(claim);
    }
    if (missing.length > 0) out.dropped.push({ entry, reason: `no such path: ${missing.join(', ')}` });
    else out.kept.push(entry.trim());
  }
  return out;
}
