// What the TUI's parts see of the app: each part (commands, tree view, setup flow, frame) is handed the narrow
// interface it uses, so the app composes its parts and no part imports the app.
import type { NamedTasks } from '../../src/runtime/tasks.js';
import type { FoundServer } from '../cli/probe.js';
import type { Anchor } from './anchor.js';
import type { TuiBackend } from './backend.js';
import type { Conversation, Entry } from './conversation.js';
import type { FrameClock } from './frame.js';
import type { InputBuffer } from './input.js';
import type { Bindings } from './keys.js';
import type { ScreenIO } from './screen.js';
import type { SetupDialog } from './setup-dialog.js';
import type { SideState } from './side-state.js';
import type { DialogData, RunState } from './view.js';

export interface TuiOptions {
  backend: TuiBackend;
  bindings: Bindings;
  io: ScreenIO;
  clock?: FrameClock;
  /** The session the first turn continues (`yagent --resume ID`), absent = a new session. */
  session?: string | undefined;
  /** /resume's picker source: this workspace's sessions, newest first (`resumable.ok` false: shown, not taken). */
  listSessions?: () => Promise<PickerSession[]>;
  /** /setup: the config it writes (absent = the default path), the loopback probe, and the backend built on the
   *  new config once it loads (the next turn uses it); without `reconfigure` /setup says to run `yagent setup`. */
  setup?: SetupOptions;
}

export interface SetupOptions {
  configPath: string | undefined;
  probe: () => Promise<FoundServer[]>;
  reconfigure: () => Promise<TuiBackend>;
}

export interface PickerSession {
  sessionId: string;
  lastPrompt: string;
  turns: number;
  updatedAt?: number;
  resumable?: { ok: boolean; reason?: string };
}

export type HelpDialog = { kind: 'help'; taskId: string; delegationId: string | null; requestId: string; question: boolean; data: DialogData };
/** A plain info panel: `pick` sees each key (false keeps it open; absent = any key closes), `refresh` runs per frame. */
export type InfoDialog = { kind: 'info'; data: DialogData; pick?: (key: string) => boolean; refresh?: () => void };
/** A dialog: an approval/question (answered through the backend) or a plain info panel (any key closes). */
export type Dialog = HelpDialog | InfoDialog;

/** What every part may do: run a named task, ask for a frame, open an info panel, say a notice. */
export interface PartBase {
  readonly tasks: NamedTasks;
  readonly frames: { mark(): void };
  readonly clock: FrameClock;
  info: InfoDialog | null;
  notice: string;
}

/** The Ctrl-T tree view's view of the app. */
export interface TreeHost extends PartBase {
  readonly backend: TuiBackend;
  readonly taskId: string | null;
  readonly run: RunState;
  cancelOrWarn(): void;
}

/** The /setup flow's view of the app. */
export interface SetupHost extends PartBase {
  readonly setupOptions: SetupOptions | undefined;
  readonly conv: Pick<Conversation, 'addInfo'>;
  readonly side: Pick<SideState, 'model'>;
  setup: SetupDialog | null;
  switchBackend(next: TuiBackend): void;
}

/** The slash commands' view of the app. */
export interface CommandHost extends PartBase {
  readonly backend: TuiBackend;
  readonly bindings: Bindings;
  readonly listSessions: (() => Promise<PickerSession[]>) | undefined;
  readonly canSetup: boolean;
  readonly conv: Pick<Conversation, 'addInfo' | 'clear'>;
  readonly side: Pick<SideState, 'data' | 'model'>;
  readonly run: RunState;
  readonly taskId: string | null;
  session: string | null;
  provider: string | null;
  model: string | null;
  modelCheck: Promise<void>;
  follow(): void;
  requestQuit(): void;
  openSetup(why?: string): void;
}

/** What a frame is made of (`frame-of.ts`): read-only state plus the scroll fields each frame settles. */
export interface FrameSource {
  readonly screen: { readonly cols: number; readonly rows: number };
  readonly helps: readonly HelpDialog[];
  readonly info: InfoDialog | null;
  readonly setup: SetupDialog | null;
  readonly run: RunState;
  readonly input: Pick<InputBuffer, 'text' | 'cursor'>;
  readonly conv: Pick<Conversation, 'entries'>;
  /** A first token's frame: the entry it went into, the only one rendered afresh (null = every frame else). */
  readonly only: Entry | null;
  readonly side: Pick<SideState, 'data' | 'model' | 'tier' | 'waiting'>;
  readonly session: string | null;
  readonly notice: string;
  readonly backend: Pick<TuiBackend, 'where'>;
  /** The words under the input box while a turn runs (the keys that act on it, queued messages). */
  readonly runningHint: string;
  scroll: number;
  anchor: Anchor | null;
  scrollTo: number | null;
  page: number;
}

/** The message queue's view of the app (`queue.ts`). */
export interface QueueHost {
  readonly backend: TuiBackend;
  readonly conv: Pick<Conversation, 'addQueued' | 'unqueue' | 'dropQueued'>;
  readonly input: Pick<InputBuffer, 'take' | 'insert'>;
  notice: string;
  follow(): void;
  /** Runs `op` on the current turn's task (held until the turn has its id). */
  command(name: string, op: (taskId: string) => Promise<void>): void;
  startTurn(text: string): void;
}
