// The rollout ledger: one writer per open file, path shapes, drain, and reader-side checkpoints.
import { promises as fsp } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { Clock } from '../../runtime/actor.js';
import type { AgentCheckpoint, CheckpointInput, OpenRolloutOptions, ReplayResult, RolloutHandle, RolloutRecord, SessionStart } from '../api.js';
import { rolloutDir, rolloutFileName, rolloutRoot } from '../data-paths.js';
import { isMissing, StoreError } from '../errors.js';
import type { CpuService } from '../../runtime/cpu-service.js';
import { fingerprint, FINGERPRINT_JOB_MODULE, type Fingerprint } from './fingerprint-job.js';
import { GitIdentityReader, type GitIdentity } from './identity.js';
import { fileSize } from './lines.js';
import type { RolloutPolicy } from './policy.js';
import { readRolloutForReplay } from './replay.js';
import { RolloutWriter } from './writer.js';
import { PRIVATE_DIR_MODE } from '../atomic-write.js';

/** Rollouts from this size are fingerprinted on the CPU pool (measured: see src/store/AGENTS.md rule 3). */
export const POOL_FINGERPRINT_MIN_BYTES = 256 << 10;

export class RolloutLedger {
  private writers = new Map<string, Promise<RolloutWriter>>();
  /** Open writers by the exact path a caller appended to (checked and awaited once): the append hot path. */
  private hot = new Map<string, RolloutWriter>();

  constructor(
    private readonly root: string,
    readonly policy: RolloutPolicy,
    private readonly clock: Clock,
    private readonly git: GitIdentityReader = new GitIdentityReader(),
    /** The process's CPU pool (the store actor connects CPU_SERVICE); absent = this thread. */
    private readonly cpu?: Pick<CpuService, 'run'>,
  ) {}

  /** Returns once the file is open. The git read runs beside the caller's first step: every append, drain and
   *  reader of this path awaits the same writer promise, so session_meta (stamped when open began) stays first. */
  async open(meta: SessionStart, opts: OpenRolloutOptions = {}): Promise<RolloutHandle> {
    const dir = rolloutDir(this.root, meta.projectId);
    await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const ts = this.clock.now();
    const path = join(dir, rolloutFileName(ts, meta.sessionId, opts.agentSuffix ? meta.agent : undefined));
    let startGit: () => void = () => undefined;
    const git = new Promise<GitIdentity | null>((resolve) => (startGit = () => resolve(this.git.read(meta.cwd))));
    const opened = this.writer(path);
    const ready = opened.then(async (w) => {
      w.enqueue([{ type: 'session_meta', ts, payload: { ...meta, git: await git } }]);
      return w;
    });
    this.track(path, ready);
    await opened;
    // spawning git blocks this thread ~12–18 ms (the fork copies the whole process): it starts a tick after this
    // returns, so the caller's answer is posted first (the store's next request waits for the spawn)
    process.nextTick(startGit);
    return { path, sessionId: meta.sessionId };
  }

  /** Only `.jsonl` files under the rollout root: the RPC boundary cannot aim the ledger elsewhere. */
  checkPath(path: string): string {
    const abs = resolve(path);
    const base = rolloutRoot(this.root) + sep;
    if (!abs.startsWith(base) || !abs.endsWith('.jsonl')) throw new StoreError('BAD_PATH', `not a rollout path: ${path}`);
    return abs;
  }

  private writer(path: string): Promise<RolloutWriter> {
    const known = this.writers.get(path);
    if (known) return known;
    const w = RolloutWriter.open(path, this.policy, this.clock);
    this.track(path, w);
    return w;
  }

  private track(path: string, w: Promise<RolloutWriter>): void {
    this.writers.set(path, w);
    w.catch(() => this.writers.delete(path));
  }

  /** Enqueues; a promise only when the caller must wait (first append to a path, or the queue over its bound). */
  append(path: string, records: RolloutRecord[]): Promise<void> | undefined {
    const w = this.hot.get(path);
    if (w === undefined) return this.appendFirst(path, records);
    w.enqueue(records);
    return w.waitForSpace();
  }

  private async appendFirst(path: string, records: RolloutRecord[]): Promise<void> {
    const w = await this.writer(this.checkPath(path));
    // the writer promise a path maps to resolves after its session_meta is queued: later appends stay behind it
    if (this.writers.has(resolve(path))) this.hot.set(path, w);
    w.enqueue(records);
    await w.waitForSpace();
  }

  async drain(path?: string): Promise<void> {
    if (path !== undefined) {
      const w = this.writers.get(this.checkPath(path));
      if (w) await (await w).drain();
      return;
    }
    await Promise.all([...this.writers.values()].map(async (w) => (await w).drain()));
  }

  /** Memory rules 1–2: drain first, fingerprint the list rebuilt from the whole file, then append. */
  async writeCheckpoint(path: string, input: CheckpointInput): Promise<AgentCheckpoint> {
    const abs = this.checkPath(path);
    await this.drain(abs);
    const fp = await this.fingerprint(abs);
    if (!fp.ok) throw new StoreError('CHECKPOINT_UNREADABLE', `cannot checkpoint ${path}: ${fp.reason}`);
    const cp: AgentCheckpoint = { ...input, fingerprint: fp.fingerprint, messageCount: fp.messageCount };
    await this.append(abs, [{ type: 'agent_checkpoint', ts: this.clock.now(), payload: cp }]);
    await this.drain(abs);
    return cp;
  }

  /** Large files on the pool (the store's thread keeps serving appends meanwhile), small ones here. */
  private async fingerprint(abs: string): Promise<Fingerprint> {
    const big = this.cpu !== undefined && ((await fileSize(abs)) ?? 0) >= POOL_FINGERPRINT_MIN_BYTES;
    if (big && this.cpu) return (await this.cpu.run({ module: FINGERPRINT_JOB_MODULE, name: 'fingerprint' }, { path: abs })) as Fingerprint;
    return fingerprint({ path: abs });
  }

  async readReplay(path: string): Promise<ReplayResult> {
    const abs = this.checkPath(path);
    await this.drain(abs);
    return readRolloutForReplay(abs, this.policy.maxReplayBytes);
  }

  async list(projectId: string): Promise<string[]> {
    const dir = rolloutDir(this.root, projectId);
    try {
      return (await fsp.readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort().map((n) => join(dir, n));
    } catch (err) {
      // a project without rollouts has no directory; an unreadable one is an error, never "no rollouts"
      if (isMissing(err)) return [];
      throw err;
    }
  }

  async close(): Promise<void> {
    const all = [...this.writers.values()];
    this.writers.clear();
    this.hot.clear();
    const results = await Promise.allSettled(all.map(async (w) => (await w).close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
