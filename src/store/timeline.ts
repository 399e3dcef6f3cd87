// Per-task timeline journal (notes, mentions, delegations, status changes, reviews): one file per task.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { TimelineEntry, TimelinePage } from './api.js';
import { sanitizeSegment, timelineDir } from './data-paths.js';
import { PRIVATE_DIR_MODE } from './atomic-write.js';
import { isMissing } from './errors.js';

export const TimelineEntrySchema = z.discriminatedUnion('type', [
  z.object({ ts: z.string(), type: z.literal('note'), agent: z.string(), ref: z.string(), status: z.string(), conclusion: z.string(), triggeredBy: z.string().optional() }),
  z.object({ ts: z.string(), type: z.literal('mention'), agent: z.string(), ref: z.string(), by: z.string() }),
  z.object({ ts: z.string(), type: z.literal('delegation'), agent: z.string(), callId: z.string(), phase: z.enum(['start', 'end']), status: z.string().optional() }),
  z.object({ ts: z.string(), type: z.literal('status'), from: z.string(), to: z.string() }),
  z.object({ ts: z.string(), type: z.literal('review'), agent: z.string(), ref: z.string(), verdict: z.string() }),
]);

export class TimelineLog {
  constructor(private readonly root: string) {}

  private path(taskId: string): string {
    return join(timelineDir(this.root), `${sanitizeSegment(taskId, 128, 'task')}.jsonl`);
  }

  async append(taskId: string, entries: TimelineEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const parsed = entries.map((e) => TimelineEntrySchema.parse(e));
    await fsp.mkdir(timelineDir(this.root), { recursive: true, mode: PRIVATE_DIR_MODE });
    await fsp.appendFile(this.path(taskId), parsed.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
  }

  /** Newest first, paged; unparseable lines (a torn tail) are skipped. */
  async page(taskId: string, limit = 50, offset = 0): Promise<TimelinePage> {
    let text = '';
    try {
      text = await fsp.readFile(this.path(taskId), 'utf8');
    } catch (err) {
      // no file is an empty timeline; an unreadable one is an error
      if (isMissing(err)) return { taskId, entries: [], total: 0, hasMore: false };
      throw err;
    }
    const all: { e: TimelineEntry; i: number }[] = [];
    text.split('\n').forEach((line, i) => {
      if (!line) return;
      try {
        const r = TimelineEntrySchema.safeParse(JSON.parse(line));
        if (r.success) all.push({ e: r.data as TimelineEntry, i });
      } catch {
        // torn line
      }
    });
    all.sort((a, b) => (a.e.ts === b.e.ts ? b.i - a.i : a.e.ts < b.e.ts ? 1 : -1));
    const entries = all.slice(offset, offset + limit).map((x) => x.e);
    return { taskId, entries, total: all.length, hasMore: offset + entries.length < all.length };
  }
}
