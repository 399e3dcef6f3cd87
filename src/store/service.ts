// StoreService: the single writer of the data root, usable in-process (tests, benchmarks) and behind the store actor.
import type { Clock, TaskGroup } from '../runtime/actor.js';
import type { CpuService } from '../runtime/cpu-service.js';
import type {
  AgentCheckpoint, BoardIndex, CheckpointInput, ContextPack, FlushReport, GcOptions, GcReport, IndexOptions, MemoryJson,
  NoteInput, NoteMeta, OpenRolloutOptions, ReplayResult, RolloutHandle, RolloutRecord, RolloutSummary, SessionStart,
  Settings, StopFacts, StoreApi, BlueprintDoc, BlueprintWrite, BlueprintWriteResult, TimelineEntry, TimelinePage, ArtifactPage, LogLine, RolloutHead, SessionEntry, SessionSummary,
  TaskInboxItem,
} from './api.js';
import { makeRedactor, type Redactor } from '../runtime/redact.js';
import type { UsageEntry } from '../runtime/protocol/index.js';
import { DEFAULT_LOG_OPTIONS, LogFiles, type LogOptions } from './logs.js';
import { headsOfTask } from './rollout/heads.js';
import { SessionLedger } from './sessions.js';
import { ArtifactStore } from './artifacts.js';
import { AgentDirectory } from './blackboard/agents.js';
import { gcNotes } from './blackboard/gc.js';
import { GC_EVERY_MS, GcSchedule, gcIsNoop } from './blackboard/gc-schedule.js';
import { buildIndex } from './blackboard/index-build.js';
import { NoteBoard } from './blackboard/notes.js';
import { noteRandom, type RandomFn } from './blackboard/note-name.js';
import { resolveRefs } from './blackboard/resolve.js';
import { blackboardEnabled, indexOptionsFromConfig } from './blackboard/options.js';
import { realClock } from '../runtime/clock.js';
import { StoreError } from './errors.js';
import { dataRoot, notesRoot, type Env } from './data-paths.js';
import { GitIdentityReader, type GitReadOptions } from './rollout/identity.js';
import { RolloutLedger } from './rollout/ledger.js';
import { removeRunFile, writeRunFile } from './run-files.js';
import { DEFAULT_POLICY, type RolloutPolicy } from './rollout/policy.js';
import { readStopFacts } from './rollout/stop.js';
import { readRolloutUsage } from './rollout/usage.js';
import { readRolloutSummary } from './rollout/summary.js';
import { SettingsStore } from './settings.js';
import { TaskMemoryStore, TASK_MEMORY_DEBOUNCE_MS } from './task-memory.js';
import { TimelineLog } from './timeline.js';
import type { UndoEntry, UndoListItem, UndoOptions, UndoPointInput, UndoRestoreOptions, UndoRestoreResult } from './types-undo.js';
import { DEFAULT_UNDO_OPTIONS, UndoStore } from './undo/undo-store.js';
import { TaskInbox } from './task-inbox.js';
import { readBlueprint, readCodeIndex, writeBlueprint, writeCodeIndex } from './knowledge.js';

export interface StoreOptions {
  env?: Env;
  /** Overrides the env-derived roots (tests). */
  root?: string;
  notesRoot?: string;
  clock?: Clock;
  policy?: Partial<RolloutPolicy>;
  noteRandom?: RandomFn;
  taskMemoryDebounceMs?: number;
  /** Extra agents (id + aliases) known to mention extraction and alias normalisation. */
  agents?: { id: string; aliases?: string[] }[];
  /** The GC pass itself, injectable so a test can hold one in flight (default: blackboard/gc.ts). */
  gcImpl?: typeof gcNotes;
  /** Named tasks for background writes (the store actor passes `ctx.tasks`; default: a private group). */
  tasks?: TaskGroup;
  /** Log retention and rotation (`[logs]`); default DEFAULT_LOG_OPTIONS. */
  logs?: LogOptions;
  /** Values never written under the data root (provider keys); secret-named values of `env` are always added. */
  secrets?: string[];
  /** How session_meta's git identity is read (timeout, binary). */
  git?: GitReadOptions;
  /** The process's CPU pool (large checkpoint fingerprints); the store actor passes connect(CPU_SERVICE). */
  cpu?: Pick<CpuService, 'run'>;
  /** `[undo]`: the shadow repositories' switch and pruning (default DEFAULT_UNDO_OPTIONS). */
  undo?: UndoOptions;
  /** The git binary of the undo store (tests). */
  undoGit?: string;
}

export class StoreService implements StoreApi {
  readonly root: string;
  readonly notesRoot: string;
  readonly rollouts: RolloutLedger;
  readonly board: NoteBoard;
  readonly agents = new AgentDirectory();
  private readonly artifacts: ArtifactStore;
  private readonly taskMemory: TaskMemoryStore;
  private readonly settings: SettingsStore;
  private readonly timelineLog: TimelineLog;
  private readonly inbox = new TaskInbox();
  private readonly logFiles: LogFiles;
  /** Applied to everything this store writes: rollouts, notes, timeline, artifacts, task memory, logs. */
  private readonly redact: Redactor;
  private readonly sessions: SessionLedger;
  private readonly undo: UndoStore;
  private readonly clock: Clock;
  private readonly env: Env;
  private readonly gcImpl: typeof gcNotes;
  private down = false;

  constructor(opts: StoreOptions = {}) {
    this.env = opts.env ?? process.env;
    this.clock = opts.clock ?? realClock;
    this.gcImpl = opts.gcImpl ?? gcNotes;
    this.root = opts.root ?? dataRoot(this.env);
    this.notesRoot = opts.notesRoot ?? notesRoot(this.env);
    for (const a of opts.agents ?? []) this.agents.register(a.id, a.aliases);
    this.rollouts = new RolloutLedger(this.root, { ...DEFAULT_POLICY, ...opts.policy }, this.clock, new GitIdentityReader(opts.git), opts.cpu);
    this.board = new NoteBoard(this.notesRoot, this.agents, this.clock, opts.noteRandom ?? noteRandom);
    this.artifacts = new ArtifactStore(this.root, () => this.clock.now());
    this.taskMemory = new TaskMemoryStore(this.root, this.clock, opts.taskMemoryDebounceMs ?? TASK_MEMORY_DEBOUNCE_MS, undefined, opts.tasks);
    this.settings = new SettingsStore(this.root);
    this.timelineLog = new TimelineLog(this.root);
    this.redact = makeRedactor(opts.secrets ?? [], this.env);
    this.logFiles = new LogFiles(this.root, opts.logs ?? DEFAULT_LOG_OPTIONS, this.clock, this.redact);
    this.sessions = new SessionLedger(this.root);
    this.undo = new UndoStore(this.root, opts.undo ?? DEFAULT_UNDO_OPTIONS, this.clock, opts.tasks, opts.undoGit);
  }

  private live(): void {
    if (this.down) throw new StoreError('SHUT_DOWN', 'store is shut down');
  }

  private bb(): void {
    this.live();
    if (!blackboardEnabled(this.env)) throw new StoreError('BLACKBOARD_DISABLED', 'YAGENT_BLACKBOARD=0');
  }

  async openRollout(meta: SessionStart, opts?: OpenRolloutOptions): Promise<RolloutHandle> {
    this.live();
    return this.rollouts.open(this.redact.value(meta), opts);
  }
  async appendRollout(path: string, records: RolloutRecord[]): Promise<void> {
    this.live();
    await this.rollouts.append(path, this.redact.value(records));
  }
  async drain(path?: string): Promise<void> {
    return this.rollouts.drain(path);
  }
  async writeCheckpoint(path: string, input: CheckpointInput): Promise<AgentCheckpoint> {
    this.live();
    return this.rollouts.writeCheckpoint(path, input);
  }
  async readReplay(path: string): Promise<ReplayResult> {
    return this.rollouts.readReplay(path);
  }
  async readStopFacts(path: string): Promise<StopFacts> {
    const abs = this.rollouts.checkPath(path);
    // the terminal record may still be buffered here: reading our own writes needs a drain first
    await this.rollouts.drain(abs);
    return readStopFacts(abs);
  }
  async readUsage(path: string): Promise<UsageEntry[]> {
    const abs = this.rollouts.checkPath(path);
    await this.rollouts.drain(abs);
    return readRolloutUsage(abs);
  }
  async readSummary(path: string): Promise<RolloutSummary> {
    const abs = this.rollouts.checkPath(path);
    await this.rollouts.drain(abs);
    return readRolloutSummary(abs, this.rollouts.policy.maxReplayBytes);
  }
  async listRollouts(projectId: string): Promise<string[]> {
    return this.rollouts.list(projectId);
  }
  async taskRollouts(projectId: string, taskId: string): Promise<RolloutHead[]> {
    const paths = await this.rollouts.list(projectId);
    // a head may still be buffered: drain the task's open files before reading them
    await this.rollouts.drain();
    return headsOfTask(paths, taskId);
  }
  async recordSessionTurn(projectId: string, sessionId: string, entry: SessionEntry): Promise<void> {
    this.live();
    await this.sessions.append(projectId, sessionId, this.redact.value(entry));
  }
  async readSession(projectId: string, sessionId: string): Promise<SessionSummary | null> {
    return this.sessions.read(projectId, sessionId);
  }
  async listSessions(projectId: string): Promise<SessionSummary[]> {
    return this.sessions.list(projectId);
  }

  async writeNote(note: NoteInput): Promise<NoteMeta> {
    this.bb();
    const meta = await this.board.write(this.redact.value(note));
    const taskId = meta.handoff.taskId;
    if (taskId) {
      const ts = meta.createdAt;
      const h = meta.handoff;
      const entries: TimelineEntry[] = [
        { ts, type: 'note', agent: meta.agent, ref: meta.ref, status: h.status, conclusion: h.conclusion, ...(h.triggeredBy ? { triggeredBy: h.triggeredBy } : {}) },
        ...h.mentions.map((agent): TimelineEntry => ({ ts, type: 'mention', agent, ref: meta.ref, by: meta.agent })),
      ];
      await this.timelineLog.append(taskId, entries);
    }
    return meta;
  }
  async listNotes(boardId: string, opts?: { agent?: string; limit?: number }): Promise<NoteMeta[]> {
    if (!blackboardEnabled(this.env)) return [];
    return this.board.list(boardId, opts);
  }
  async readNote(boardId: string, ref: string): Promise<{ meta: NoteMeta; body: string } | null> {
    if (!blackboardEnabled(this.env)) return null;
    return this.board.read(boardId, ref);
  }
  async buildIndex(boardId: string, opts?: IndexOptions): Promise<BoardIndex> {
    if (!blackboardEnabled(this.env)) return { text: '', listed: 0, total: 0, skipped: 0 };
    return buildIndex(this.board, boardId, opts ?? indexOptionsFromConfig(undefined));
  }
  async resolveRefs(boardId: string, refs: string[], opts?: { max?: number; budgetChars?: number }): Promise<ContextPack> {
    if (!blackboardEnabled(this.env)) return { notes: [], unresolved: [...refs] };
    return resolveRefs(this.board, boardId, refs, opts);
  }
  async gcNotes(opts: GcOptions): Promise<GcReport> {
    if (!blackboardEnabled(this.env)) return { removedNotes: 0, removedBoards: 0, skippedSymlinks: 0 };
    try {
      return await this.gcImpl(this.notesRoot, opts, this.clock.now());
    } finally {
      this.board.invalidate();
    }
  }
  /** Runs GC now and every `everyMs` as the named task `blackboard-gc` on `tasks`, beside (never in front of) writes.
   *  Returns null when the options clean nothing. The caller stops the schedule (the store actor's stop hook). */
  scheduleGc(tasks: TaskGroup, opts: GcOptions, everyMs: number = GC_EVERY_MS): GcSchedule | null {
    if (gcIsNoop(opts)) return null;
    const schedule = new GcSchedule(() => this.gcNotes(opts), tasks, this.clock, everyMs);
    schedule.start();
    return schedule;
  }
  async registerAgent(id: string, aliases?: string[]): Promise<void> {
    this.agents.register(id, aliases);
  }
  async recordTimeline(taskId: string, entry: TimelineEntry): Promise<void> {
    this.live();
    await this.timelineLog.append(taskId, [this.redact.value(entry)]);
  }
  async postToTask(taskId: string, item: TaskInboxItem): Promise<number> {
    return this.inbox.post(taskId, item);
  }
  async takeTaskInbox(taskId: string, kind?: TaskInboxItem['kind']): Promise<TaskInboxItem[]> {
    return this.inbox.take(taskId, kind);
  }
  async timeline(taskId: string, opts?: { limit?: number; offset?: number }): Promise<TimelinePage> {
    return this.timelineLog.page(taskId, opts?.limit, opts?.offset);
  }

  async writeArtifact(content: string): Promise<string> {
    this.live();
    return this.artifacts.write(this.redact.text(content));
  }
  /** PNG only (checked): pixels cannot pass the text redactor, and nothing else may skip it. */
  async writeImageArtifact(png: Uint8Array): Promise<string> {
    this.live();
    return this.artifacts.writeImage(png);
  }
  async readArtifact(id: string, offset?: number, limit?: number): Promise<ArtifactPage> {
    return this.artifacts.read(id, offset, limit);
  }
  async saveTaskMemory(taskId: string, memory: MemoryJson): Promise<void> {
    this.live();
    this.taskMemory.save(taskId, this.redact.value(memory));
  }
  async loadTaskMemory(taskId: string): Promise<MemoryJson | null> {
    return this.taskMemory.load(taskId);
  }
  async flushTaskMemory(): Promise<FlushReport> {
    return this.taskMemory.flushAll();
  }
  async deleteTaskMemory(taskId: string): Promise<boolean> {
    this.live();
    return this.taskMemory.delete(taskId);
  }
  async readSettings(): Promise<Settings> {
    return this.settings.read();
  }
  async authorizeProject(projectPath: string, grantKeys?: string[]): Promise<Settings> {
    this.live();
    return this.settings.authorize(projectPath, grantKeys ?? []);
  }

  async writeRunFile(name: string, content: string): Promise<string> {
    this.live();
    return writeRunFile(this.root, name, content);
  }
  async removeRunFile(name: string): Promise<void> {
    return removeRunFile(this.root, name);
  }

  async appendLogs(lines: LogLine[]): Promise<void> {
    this.live();
    await this.logFiles.append(lines);
  }

  async undoPoint(input: UndoPointInput): Promise<UndoEntry | null> {
    this.live();
    return this.undo.enabled ? this.undo.point(this.redact.value(input)) : null;
  }
  async undoEnd(workspace: string, id: string): Promise<void> {
    this.live();
    if (this.undo.enabled) await this.undo.end(workspace, id);
  }
  async undoList(workspace: string): Promise<UndoListItem[]> {
    this.live();
    return this.undo.list(workspace);
  }
  async undoRestore(workspace: string, id: string, opts?: UndoRestoreOptions): Promise<UndoRestoreResult> {
    this.live();
    return this.undo.restore(workspace, id, opts);
  }

  /** One prune pass now (normally a named task after a turn ends, at most hourly per workspace). */
  async undoPrune(workspace: string): Promise<void> {
    this.live();
    await this.undo.prune(workspace);
  }

  async readCodeIndex(key: string): Promise<string | null> {
    return readCodeIndex(this.root, key);
  }
  async writeCodeIndex(key: string, data: string): Promise<void> {
    this.live();
    await writeCodeIndex(this.root, key, this.redact.text(data));
  }
  async readBlueprint(projectId: string): Promise<BlueprintDoc | null> {
    return readBlueprint(this.root, projectId);
  }
  async writeBlueprint(w: BlueprintWrite): Promise<BlueprintWriteResult> {
    this.live();
    return writeBlueprint(this.root, { ...w, prose: this.redact.text(w.prose) }, () => this.clock.now());
  }

  /** Everything buffered becomes durable: rollouts drained, debounced task memory written. */
  async flush(): Promise<void> {
    await this.rollouts.drain();
    const r = await this.taskMemory.flushAll();
    if (r.failed.length > 0) throw new StoreError('FLUSH_FAILED', `task memory flush failed: ${r.failed.map((f) => `${f.taskId}: ${f.error}`).join('; ')}`);
  }

  /** Flushes, closes every handle, refuses further writes; resolves once all of it is acknowledged. */
  async shutdown(): Promise<void> {
    if (this.down) return;
    this.down = true;
    const mem = await this.taskMemory.flushAll();
    await this.undo.settled();
    await this.logFiles.close();
    await this.rollouts.close();
    if (mem.failed.length > 0) throw new StoreError('FLUSH_FAILED', `task memory flush failed: ${mem.failed.map((f) => `${f.taskId}: ${f.error}`).join('; ')}`);
  }
}
