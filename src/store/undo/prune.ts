// Pruning of one shadow repository: `[undo] keep_days` by age, `[undo] max_mb` by the size of its objects.
import type { UndoEntry, UndoOptions } from '../types-undo.js';
import type { ShadowRepo } from './shadow.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `entries` newest first. Drops points past keep_days, pins without an entry (a crash between the two writes),
 *  then the oldest quarter at a time while the objects exceed max_mb (the newest point always stays). */
export async function pruneShadow(repo: ShadowRepo, entries: UndoEntry[], opts: UndoOptions, now: number, drop: (e: UndoEntry) => Promise<void>): Promise<void> {
  let kept = [...entries];
  let dropped = false;
  if (opts.keepDays > 0) {
    const cutoff = now - opts.keepDays * DAY_MS;
    for (const e of kept.filter((x) => x.time < cutoff)) await drop(e);
    dropped = kept.some((x) => x.time < cutoff);
    kept = kept.filter((x) => x.time >= cutoff);
  }
  const known = new Set(entries.map((e) => e.id));
  for (const id of await repo.pinnedIds()) {
    if (known.has(id)) continue;
    await repo.unpin(id);
    dropped = true;
  }
  if (dropped) await repo.compact();
  if (opts.maxBytes <= 0) return;
  while (kept.length > 1 && (await repo.sizeBytes()) > opts.maxBytes) {
    const n = Math.max(1, Math.floor(kept.length / 4));
    for (const e of kept.slice(-n)) await drop(e);
    kept = kept.slice(0, -n);
    await repo.compact();
  }
}
