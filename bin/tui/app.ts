// The TUI client: folds dispatcher envelopes into view state, maps keys to actions, paints coalesced frames.
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { NamedTasks } from '../../src/runtime/tasks.js';
import type { TuiBackend } from './backend.js';
import { runSlash } from './commands.js';
import { Conversation, type Entry } from './conversation.js';
import { FrameScheduler, realFrameClock, type FrameClock } from './frame.js';
import { editInput } from './edit-keys.js';
import { InputBuffer } from './input.js';
import { actionFor, keyLabel, type Action } from './keys.js';
import { TuiScreen, type Frame } from './screen.js';
import type { SetupDialog } from './setup-dialog.js';
import type { Anchor } from './anchor.js';
import { answerSetup, openSetup } from './setup-flow.js';
import { SideState } from './side-state.js';
import { TreeView } from './tree-view.js';
import { frameOf } from './frame-of.js';
import { MessageQueue } from './queue.js';
import { approvalBody } from './approval-body.js';
import { streamDeferred, type RunState } from './view.js';
import type { CommandHost, FrameSource, HelpDialog, InfoDialog, QueueHost, SetupHost, TreeHost, TuiOptions } from './parts.js';

export type { Dialog, PickerSession, TuiOptions } from './parts.js';

const MAIN_ACTIONS: readonly Action[] = ['send', 'newline', 'cancel', 'pause', 'history_prev', 'history_next', 'scroll_up', 'scroll_down', 'tree'];
const APPROVAL_ACTIONS: readonly Action[] = ['approve_once', 'approve_session', 'approve_project', 'deny', 'cancel'];
const QUIT_WINDOW_MS = 2000;

export class TuiApp implements CommandHost, TreeHost, SetupHost, FrameSource, QueueHost {
  readonly conv = new Conversation();
  readonly input = new InputBuffer();
  readonly tasks = new NamedTasks();
  readonly screen: TuiScreen;
  readonly frames: FrameScheduler;
  run: RunState = 'idle';
  taskId: string | null = null;
  session: string | null;
  notice = '';
  /** `/model NAME`: the provider the next turns use (null = routing decides), once `modelCheck` settled. */
  provider: string | null = null;
  /** With `provider`: the model picked from its server's list (null = the provider's configured model). */
  model: string | null = null;
  /** Messages typed while a turn runs (`queue.ts`). */
  private readonly queue = new MessageQueue(this);
  modelCheck: Promise<void> = Promise.resolve();
  /** Lines below the stream's window (`↑N`; 0 = following the newest), set by each frame from `anchor`. */
  scroll = 0;
  /** Scrolled up: the entry and line at the window's top, so lines arriving below never move the view. */
  anchor: Anchor | null = null;
  /** PgUp / PgDn asked for this scroll from the bottom; the next frame (which knows the layout) anchors it. */
  scrollTo: number | null = null;
  /** Lines PgUp / PgDn move (set by each frame from the stream's height). */
  page = 5;
  /** Pending help requests, oldest first; the head is the open dialog. */
  readonly helps: HelpDialog[] = [];
  info: InfoDialog | null = null;
  /** The open /setup dialog (answers come from the input box). */
  setup: SetupDialog | null = null;
  readonly side = new SideState();
  private lastCtrlC = -Infinity;
  /** Between a bracketed paste's start and end keys. */
  private pasting = false;
  /** Commands (cancel, pause) given before the backend named the new turn's task: sent as soon as it has an id. */
  private pending: ((taskId: string) => Promise<void>)[] = [];
  private lastTree = -Infinity;
  /** Set while a first token's frame paints (`onEnvelope`). */
  only: Entry | null = null;
  private treeTimer: { cancel(): void } | null = null;
  private unsubscribe: () => void;
  private closed = false;
  /** Set once a quit started (kept, not detached: main awaits `exited`). */
  quitting: Promise<void> | null = null;
  private resolveExit!: () => void;
  /** Resolves once the TUI has quit (the task drained, the screen restored). */
  readonly exited = new Promise<void>((r) => (this.resolveExit = r));

  constructor(readonly opts: TuiOptions) {
    this.session = opts.session ?? null;
    this.screen = new TuiScreen(opts.io);
    this.frames = new FrameScheduler(() => this.paint(), 30, opts.clock ?? realFrameClock);
    this.unsubscribe = opts.backend.subscribe((env) => this.onEnvelope(env));
    this.screen.onKey((ch, full) => this.onKey(ch, full));
    this.screen.onResize(() => this.frames.flush());
    this.frames.flush(); // the first frame, right away
  }

  get clock(): FrameClock { return this.opts.clock ?? realFrameClock; }
  get backend(): TuiBackend { return this.opts.backend; }
  get bindings(): TuiOptions['bindings'] { return this.opts.bindings; }
  get listSessions(): TuiOptions['listSessions'] { return this.opts.listSessions; }
  get setupOptions(): TuiOptions['setup'] { return this.opts.setup; }
  get canSetup(): boolean { return this.opts.setup !== undefined; }

  /** The words under the input box while a turn runs: the keys that act on it, as configured. */
  get runningHint(): string {
    const b = this.opts.bindings;
    return `${keyLabel(b.cancel[0])} cancels · ${keyLabel(b.pause[0])} pauses`;
  }

  requestQuit(): void {
    this.quitting ??= this.quit();
  }

  onEnvelope(env: Envelope): void {
    if (env.taskId !== this.taskId) return;
    const p = env.payload;
    // a step's first visible text paints now (first token → screen), only its entry rendered afresh: the rest of its
    // stream, a parallel stream's grown text and the sidebar's figures wait for a frame slot (`streamDeferred`)
    if (this.conv.apply(env)) {
      this.only = this.conv.firstEntry;
      if (this.only) this.frames.flush();
      if (this.only === null || streamDeferred()) this.frames.mark();
      this.only = null;
    }
    if (this.side.apply(env)) this.frames.mark();
    switch (p.type) {
      case 'user_help_needed': {
        const question = p.kind === 'question';
        const body = question ? p.question : approvalBody(p.question, p.tool, p.detail);
        const keys = question ? 'type the answer + Enter · Esc deny' : `${this.approvalHint()}${body.split('\n').length > 8 ? ' · ↑↓ PgUp/PgDn scroll' : ''}`;
        this.helps.push({ kind: 'help', taskId: env.taskId, delegationId: env.delegationId, requestId: p.requestId, question, data: { title: `${p.agent} ${question ? 'asks' : 'needs approval'}`, body, keys } });
        break;
      }
      // an ended delegation (or task) withdrew its open questions: their dialogs close
      case 'delegation_end':
        this.dropHelps((h) => this.conv.inside(h.delegationId, p.callId));
        break;
      case 'task_end':
        this.dropHelps(() => true);
        break;
      // answered here or by another client, or withdrawn (its asker gave up or is gone): the dialog closes
      case 'user_help_response':
      case 'user_help_withdrawn': {
        const i = this.helps.findIndex((h) => h.requestId === p.requestId);
        if (i >= 0) this.helps.splice(i, 1);
        break;
      }
      case 'task_paused':
        this.run = 'paused';
        break;
      case 'task_resumed':
        this.run = 'running';
        break;
      default:
        return;
    }
    this.frames.mark();
  }

  private dropHelps(gone: (h: HelpDialog) => boolean): void {
    for (let i = this.helps.length - 1; i >= 0; i--) if (gone(this.helps[i] as HelpDialog)) this.helps.splice(i, 1);
  }

  private approvalHint(): string {
    const b = this.opts.bindings;
    return `${b.approve_once[0]} once · ${b.approve_session[0]} session · ${b.approve_project[0]} project · ${b.deny[0]} deny`;
  }

  onKey(ch: string | undefined, full: string): void {
    // blessed reports Enter twice ('enter' then 'return'): only 'enter' counts
    if (this.closed || full === 'return' || full === 'M-return') return;
    if (full === 'C-c' && this.clock.now() - this.lastCtrlC < QUIT_WINDOW_MS) {
      this.quitting ??= this.quit();
      return;
    }
    if (full === 'C-c') this.lastCtrlC = this.clock.now();
    if (this.onPasteKey(ch, full)) return;
    const help = this.helps[0];
    if (this.info) this.onInfoKey(this.info, ch, full);
    else if (help && !help.question) this.onApprovalKey(help, full);
    else this.onMainKey(ch, full, help);
    this.frames.flush(); // echo at once: keystroke → paint is the latency bench measures
  }

  /** A bracketed paste goes into the input box as text (its line breaks too), one frame per frame slot, not per
   *  character; true = the key was part of a paste. */
  private onPasteKey(ch: string | undefined, full: string): boolean {
    if (full === 'paste-start' || full === 'paste-end') {
      this.pasting = full === 'paste-start';
      this.frames.flush();
      return true;
    }
    if (!this.pasting) return false;
    if (full === 'enter') this.input.insert('\n');
    else editInput(this.input, ch, full);
    this.frames.mark();
    return true;
  }

  private onInfoKey(info: InfoDialog, ch: string | undefined, full: string): void {
    if (info.pick?.(ch ?? full) === false) return;
    this.info = null;
    if (full === 'C-c') this.cancelOrWarn();
  }

  private onApprovalKey(help: HelpDialog, full: string): void {
    const by = { up: -1, down: 1, pageup: -10, pagedown: 10 }[full];
    if (by !== undefined) {
      // a long preview scrolls (dialogBox keeps the last page full)
      help.data.scroll = Math.max(0, Math.min((help.data.scroll ?? 0) + by, help.data.body.split('\n').length - 1));
      return;
    }
    const a = actionFor(this.opts.bindings, full, APPROVAL_ACTIONS);
    if (a === 'cancel') {
      if (full === 'C-c') return this.cancelOrWarn();
      return this.answer(help, false, undefined, 'once'); // Esc = deny
    }
    if (a === 'deny') return this.answer(help, false, undefined, 'once');
    if (a !== null) this.answer(help, true, undefined, a === 'approve_session' ? 'session' : a === 'approve_project' ? 'project' : 'once');
  }

  private answer(help: HelpDialog, approved: boolean, answer: string | undefined, scope: 'once' | 'session' | 'project'): void {
    this.helps.splice(this.helps.indexOf(help), 1);
    this.tasks.go('tui-respond', () => this.opts.backend.respond(help.taskId, { requestId: help.requestId, approved, answer, scope }));
  }

  private onMainKey(ch: string | undefined, full: string, question: HelpDialog | undefined): void {
    const a = actionFor(this.opts.bindings, full, MAIN_ACTIONS);
    switch (a) {
      case 'send': {
        // setup answers (a key among them) stay out of the Up/Down history
        const text = this.input.take(this.setup === null);
        if (question) return this.answer(question, true, text, 'once');
        return this.submit(text);
      }
      case 'newline':
        return this.input.insert('\n');
      case 'cancel':
        if (this.setup && full === 'escape') {
          this.setup = null;
          return this.conv.addInfo('setup cancelled; the config was not changed');
        }
        if (question && full !== 'C-c') return this.answer(question, false, undefined, 'once');
        if (full === 'escape' && this.run === 'idle') return void this.input.take();
        return this.cancelOrWarn();
      case 'pause':
        return this.togglePause();
      // inside multi-line text Up/Down move between its lines; on the first / last line they browse the history
      case 'history_prev':
        return this.input.onFirstLine ? this.input.prev() : this.input.lineUp();
      case 'history_next':
        return this.input.onLastLine ? this.input.next() : this.input.lineDown();
      case 'scroll_up':
        return this.scrollBy(1);
      case 'scroll_down':
        return this.scrollBy(-1);
      case 'tree':
        return new TreeView(this).open();
      default:
        if (full === 'end') this.follow(); // End also returns the stream to the newest lines, as in a terminal
        editInput(this.input, ch, full);
    }
  }

  /** PgUp / PgDn: a page (the stream's height less two lines of context) up or down. */
  private scrollBy(pages: number): void {
    this.scrollTo = Math.max(0, (this.scrollTo ?? this.scroll) + pages * this.page);
  }

  /** Back to following the newest lines. */
  follow(): void {
    this.scroll = 0;
    this.anchor = null;
    this.scrollTo = null;
  }

  cancelOrWarn(): void {
    if (this.run === 'idle') {
      // a draft goes first (kept in the history: Up brings it back), as in a shell
      const draft = this.input.text !== '' && this.input.take() !== '';
      this.notice = draft ? 'input cleared (Ctrl-C again to quit)' : 'Ctrl-C again to quit';
      return;
    }
    this.notice = 'cancelling… (Ctrl-C again to quit)';
    this.command('tui-cancel', (id) => this.opts.backend.cancel(id));
  }

  /** Sends a command to the current turn's task, or queues it until the turn has a task id. */
  command(name: string, op: (taskId: string) => Promise<void>): void {
    const id = this.taskId;
    if (id === null) this.pending.push(op);
    else this.tasks.go(name, () => op(id));
  }

  private togglePause(): void {
    if (this.run === 'idle') return;
    const b = this.opts.backend;
    this.command('tui-pause', (id) => (this.run === 'paused' ? b.resume(id) : b.pause(id)));
  }

  /** Enter: a slash command, or a turn (a follow-up in the same session once the previous one ended). */
  submit(text: string): void {
    const t = text.trim();
    if (this.setup) return answerSetup(this, this.setup, t);
    if (t === '') return;
    if (t.startsWith('/')) return runSlash(this, t);
    if (this.run !== 'idle') return this.queue.add(t);
    this.startTurn(t);
  }

  startTurn(t: string): void {
    this.conv.addUser(t);
    this.follow();
    this.run = 'running';
    this.notice = '';
    this.taskId = null; // until the backend names the new task, no command may reach the previous one
    this.pending = [];
    this.tasks.go('tui-turn', async () => {
      await this.modelCheck;
      const started = await this.opts.backend.start(t, this.session ?? undefined, this.provider ?? undefined, this.provider !== null ? (this.model ?? undefined) : undefined).catch((err: Error) => {
        this.conv.addInfo(err.message, 'error');
        return null;
      });
      if (started === null) {
        this.run = 'idle';
        this.frames.mark();
        return;
      }
      const { taskId, done } = started;
      this.taskId = taskId;
      for (const op of this.pending.splice(0)) await op(taskId);
      const outcome = await done;
      if (outcome?.sessionId) this.session = outcome.sessionId;
      if (outcome?.error && outcome.stopReason !== 'cancelled') this.conv.addInfo(outcome.error.message, 'error');
      this.side.turnEnded(outcome);
      this.run = 'idle';
      this.notice = outcome ? `done (${outcome.stopReason})` : 'done';
      await this.queue.afterTurn(taskId, outcome?.stopReason === 'cancelled');
      this.frames.mark();
    });
  }

  /** Opens the /setup dialog (`setup-flow.ts`); `why` heads it. */
  openSetup(why = ''): void {
    openSetup(this, why);
  }

  /** The backend built on a new configuration takes over (the old session belongs to the previous run). */
  switchBackend(next: TuiBackend): void {
    this.unsubscribe();
    this.opts.backend = next;
    this.unsubscribe = next.subscribe((env) => this.onEnvelope(env));
    this.session = null;
  }

  /** Quits: cancels a running task, waits for it to drain, restores the terminal. */
  async quit(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.notice = 'quitting…';
    this.frames.flush();
    if (this.taskId !== null && this.run !== 'idle') await this.opts.backend.cancel(this.taskId);
    await this.tasks.waitAll(10_000);
    this.unsubscribe();
    this.treeTimer?.cancel();
    this.frames.stop();
    this.screen.destroy();
    this.resolveExit();
  }

  /** The Activity list: the supervision tree while a turn runs (≤ 2 fetches/s, and at least one a second while
   *  nothing else paints), empty between turns. True when a fetch is due (`fetchTree`, after the frame is out). */
  refreshTree(): boolean {
    if (this.run === 'idle') {
      this.treeTimer?.cancel();
      this.treeTimer = null;
      if (this.side.setActivity(null)) this.frames.mark();
      return false;
    }
    this.treeTimer ??= this.clock.setTimeout(() => {
      this.treeTimer = null;
      this.frames.mark();
    }, 1000);
    if (this.clock.now() - this.lastTree < 500) return false;
    this.lastTree = this.clock.now();
    return true;
  }

  private fetchTree(): void {
    this.tasks.go('tui-tree', async () => {
      if (this.side.setActivity(await this.opts.backend.tree())) this.frames.mark();
    });
  }

  paint(): void {
    if (this.closed && this.notice !== 'quitting…') return;
    const fetch = this.refreshTree();
    this.info?.refresh?.();
    this.screen.paint(this.frame());
    // a local host builds the tree synchronously: never between a first token and its frame
    if (fetch) this.fetchTree();
  }

  /** The frame the current state shows: every region's lines, sized by the layout (`frame-of.ts`). */
  frame(): Frame {
    return frameOf(this);
  }
}
