// Notes on a board: `notes/{boardID}/{agent}/{stem}.md`, written atomically, listed as NoteMeta (no body).
import { closeSync, constants as fsConstants, lstatSync, openSync, promises as fsp, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../../runtime/actor.js';
import { HandoffSchema, type Handoff } from '../../runtime/protocol/index.js';
import type { NoteInput, NoteMeta } from '../api.js';
import { atomicWrite } from '../atomic-write.js';
import { renderHandoff } from './handoff-text.js';
import { StoreError } from '../errors.js';
import { agentDir, boardDir, sanitizeAgent, sanitizeBoardId } from '../data-paths.js';
import type { AgentDirectory } from './agents.js';
import { frontExtras, parseHandoff, serializeNote, splitNote } from './front-matter.js';
import { NOTE_EXT, formatNoteRef, generateNoteStem, noteRandom, parseNoteRef, stemTime, type RandomFn } from './note-name.js';
import { ListingCache, type NoteFile } from './listing.js';

export type { NoteFile } from './listing.js';

export const NoteInputSchema = z.object({
  boardId: z.string(),
  agent: z.string(),
  handoff: HandoffSchema,
  body: z.string(),
  systemArtifacts: z.array(z.string()).optional(),
  mentions: z.array(z.string()).optional(),
  triggeredBy: z.string().optional(),
});

const HEAD_BYTES = 16 * 1024;

export class NoteBoard {
  private readonly listings = new ListingCache();

  constructor(
    readonly root: string,
    private readonly agents: AgentDirectory,
    private readonly clock: Clock,
    /** Injectable so a test can pin the random part to a constant (seed rule 13). */
    private readonly rand: RandomFn = noteRandom,
  ) {}

  board(boardId: string): string {
    const b = sanitizeBoardId(boardId);
    if (b === null) throw new StoreError('EMPTY_BOARD', 'empty board id: refusing to invent an ad-hoc board');
    return b;
  }

  async write(raw: NoteInput): Promise<NoteMeta> {
    const parsed = NoteInputSchema.safeParse(raw);
    if (!parsed.success) throw new StoreError('BAD_INPUT', `note rejected: ${parsed.error.message}`);
    const input = parsed.data;
    const boardId = this.board(input.boardId);
    const agent = sanitizeAgent(this.agents.normalize(input.agent) ?? input.agent);
    const handoff: Handoff = {
      ...input.handoff,
      agent,
      // the system saw what was produced; the model's list is a claim (seed rule 5)
      artifacts: input.systemArtifacts && input.systemArtifacts.length > 0 ? input.systemArtifacts : input.handoff.artifacts,
      mentions: this.agents.extractMentions(input.body, [...input.handoff.mentions, ...(input.mentions ?? [])]),
      ...(input.triggeredBy ? { triggeredBy: input.triggeredBy } : {}),
    };
    const body = input.body.trim().length > 0 ? input.body : renderHandoff(handoff, 0);
    const createdAt = new Date(this.clock.now()).toISOString();
    const bodySize = Buffer.byteLength(body);
    const text = serializeNote({ handoff, createdAt, bodySize }, body);
    const dir = agentDir(this.root, boardId, agent);
    for (let attempt = 0; ; attempt++) {
      const stem = generateNoteStem(this.clock.now(), this.rand);
      try {
        await atomicWrite(join(dir, stem + NOTE_EXT), text, { noClobber: true });
        // the single in-process writer knows the board changed: no mtime granularity to wait out
        this.listings.invalidate(boardDir(this.root, boardId));
        return { ref: formatNoteRef(agent, stem), boardId, agent, createdAt, handoff, bodySize };
      } catch (err) {
        // a collision is loud (link EEXIST), never a silent overwrite; the counter moves on. ENOENT: a GC pass
        // rmdir'ed the emptied agent dir between our mkdir and open; atomicWrite makes it again
        const code = (err as NodeJS.ErrnoException).code;
        if ((code !== 'EEXIST' && code !== 'ENOENT') || attempt >= 3) throw err;
      }
    }
  }

  /** Every note file of a board, newest first by time order of the file name. Revalidated on every call
   *  (directory signatures, see ListingCache): a note written before the call is always listed. */
  async files(boardId: string, agent?: string): Promise<readonly NoteFile[]> {
    const all = this.listings.files(boardDir(this.root, this.board(boardId)));
    return agent === undefined ? all : all.filter((f) => f.agent === agent);
  }

  /** The directory signatures behind the board's current listing, when they can be trusted (ListingCache). */
  trustedDirs(boardId: string): readonly { path: string; ino: bigint; mtimeNs: bigint }[] | null {
    return this.listings.trustedDirs(boardDir(this.root, this.board(boardId)));
  }

  /** Another component (GC) removed notes under the root. */
  invalidate(): void {
    this.listings.invalidate();
  }

  /** Decodes one note's meta from its head; throws only on I/O (the index counts it as skipped). */
  async meta(boardId: string, f: NoteFile): Promise<NoteMeta> {
    const cached = this.listings.cachedMeta(f.path);
    if (cached) return cached;
    const meta = this.decode(boardId, f);
    this.listings.rememberMeta(f.path, meta);
    return meta;
  }

  /** Synchronous on purpose: a 16 KB head read is microseconds, while a hop through the process-wide libuv
   *  pool queues behind every actor's I/O (the index decodes up to N of these per LLM call). */
  private decode(boardId: string, f: NoteFile): NoteMeta {
    const st = lstatSync(f.path);
    if (st.isSymbolicLink()) throw new StoreError('BAD_PATH', `note ${f.path} is a symlink`);
    const text = readHeadSync(f.path);
    const handoff = parseHandoff(text, f.agent);
    const extra = frontExtras(text);
    const createdAt = extra.createdAt ?? stemTime(f.stem) ?? st.mtime.toISOString();
    const bodySize = extra.bodySize ?? Math.max(0, st.size - text.indexOf('\n---\n') - 5);
    return { ref: formatNoteRef(f.agent, f.stem), boardId, agent: f.agent, createdAt, handoff, bodySize };
  }

  /** The one exit for "notes by agent": any alias spelling resolves here, or `agent` comes back null. */
  async listByAgent(boardId: string, agentRef: string, limit = 0): Promise<{ agent: string | null; notes: NoteMeta[] }> {
    const known = this.agents.normalize(agentRef);
    const candidate = sanitizeAgent(known ?? agentRef.replace(/^@/, '').replace(/^agent[:/]/i, ''));
    const files = await this.files(boardId, candidate);
    if (files.length === 0 && known === null) return { agent: null, notes: [] };
    return { agent: candidate, notes: await this.metas(boardId, limit > 0 ? files.slice(0, limit) : files) };
  }

  async list(boardId: string, opts: { agent?: string; limit?: number } = {}): Promise<NoteMeta[]> {
    if (opts.agent !== undefined) return (await this.listByAgent(boardId, opts.agent, opts.limit ?? 0)).notes;
    const files = await this.files(boardId);
    return this.metas(boardId, opts.limit && opts.limit > 0 ? files.slice(0, opts.limit) : files);
  }

  private async metas(boardId: string, files: readonly NoteFile[]): Promise<NoteMeta[]> {
    const out: NoteMeta[] = [];
    for (const f of files) {
      try {
        out.push(await this.meta(boardId, f));
      } catch {
        // unreadable notes are counted by the index; a listing just leaves them out
      }
    }
    return out;
  }

  async read(boardId: string, ref: string): Promise<{ meta: NoteMeta; body: string } | null> {
    const r = parseNoteRef(ref);
    if (!r) return null;
    const b = this.board(boardId);
    const path = join(boardDir(this.root, b), r.agent, r.stem + NOTE_EXT);
    let text: string;
    try {
      text = await fsp.readFile(path, 'utf8');
    } catch {
      return null;
    }
    const meta = await this.meta(b, { agent: r.agent, stem: r.stem, path });
    return { meta, body: splitNote(text).body };
  }
}

/** The first 16 KB, or the whole file when the front-matter does not close within it. O_NOFOLLOW: a note
 *  swapped for a symlink after the lstat is refused rather than followed. */
function readHeadSync(path: string): string {
  const fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const bytesRead = readSync(fd, buf, 0, HEAD_BYTES, 0);
    const head = buf.subarray(0, bytesRead).toString('utf8');
    if (bytesRead < HEAD_BYTES || splitNote(head).front !== null || !head.startsWith('---\n')) return head;
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
