// A leaf for clients: the codeseek actor's name, module, spec, and the API agents reach over RPC (types only).
import type { ServiceSpec } from '../../runtime/runtime.js';
import type { CodeQuery } from './answers.js';
import type { CodeAnswer } from './engine.js';
import type { Progress } from './code-index.js';

export type { CodeQuery } from './answers.js';
export type { CodeAnswer } from './engine.js';

export const CODESEEK_ACTOR = 'codeseek';
export const CODESEEK_MODULE = 'src/actors/codeseek/codeseek-actor.js';

export interface CodeSeekApi {
  /** Answers from what is indexed (waiting a little for a refresh in flight); says when the index is still building. */
  ask(workspace: string, q: CodeQuery): Promise<CodeAnswer>;
  /** Starts indexing in the background; returns at once with the progress so far. */
  warm(workspace: string): Promise<Progress>;
  /** The workspace's derived facts for the blueprint: every file's language and imports (refreshes first, bounded). */
  imports(workspace: string): Promise<{ status: Progress; files: { path: string; lang: string; imports: string[] }[] }>;
}

/** Crashes within a minute that are restarted; one more and it stays down (agents' code tools then say so). */
export const CODESEEK_RESTARTS = { intensity: 3, periodMs: 60_000 };

/** How the CLI starts it: its own worker under its own restart budget (a grammar crash never restarts the store). */
export function codeseekServiceSpec(): ServiceSpec<Record<string, never>> {
  return { name: CODESEEK_ACTOR, module: CODESEEK_MODULE, input: {}, restart: 'permanent', preload: [], isolate: CODESEEK_RESTARTS };
}
