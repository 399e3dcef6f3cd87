// The one file that adapts the runtime facade, the store actor and the agents' runTask to LocalHost.
import { Runtime } from '../../src/runtime/runtime.js';
import type { YagentConfig } from '../../src/runtime/config/types.js';
import { serializeError, type Envelope } from '../../src/runtime/protocol/index.js';
import type { StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import type { EventFilter, TaskOutcome, TaskSpec, TreeNode, UserHelpResponse } from './types.js';

export interface RuntimePort {
  runTask(spec: TaskSpec, taskId: string, signal: AbortSignal): Promise<TaskOutcome>;
  subscribe(filter: EventFilter, onEnvelope: (env: Envelope) => void): () => void;
  pause(taskId: string): boolean;
  resume(taskId: string): boolean;
  respond(taskId: string, response: UserHelpResponse): boolean;
  tree(): TreeNode;
  timeline(taskId: string, limit: number): Promise<unknown[]>;
  memory(taskId: string): Promise<unknown>;
  drain(timeoutMs: number): Promise<string[]>;
  shutdown(): Promise<void>;
}

export interface PortOptions {
  config: YagentConfig;
  configPath: string | undefined;
  canAsk: boolean;
}

const ZERO_USAGE = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
let subscribers = 0;
/** How long a cancelled task may take to stop on its own before its tree is stopped. */
export const CANCEL_GRACE_MS = 3000;

export async function openRuntimePort(opts: PortOptions): Promise<RuntimePort> {
  // the agents' module graph loads on this thread while the runtime boots its warm spare on another
  const [{ runTask }, runtime] = await Promise.all([import('../../src/actors/agents/run-task.js'), Runtime.start({ hasResponder: opts.canAsk })]);
  await runtime.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: {}, restart: 'permanent' });
  const store = runtime.connect<StoreApi>(STORE_ACTOR);
  return {
    async runTask(spec, taskId, signal) {
      // cancel is cooperative first; if the tree has not wound down after the grace, it is stopped
      let force: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        force = setTimeout(() => void runtime.endTask(taskId).catch(() => undefined), CANCEL_GRACE_MS);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (spec.options.disabledAgents.length > 0) {
        runtime.publish({ name: 'client', taskId }, { type: 'log', level: 'warn', message: `-d ${spec.options.disabledAgents.join(',')}: runTask has no disable-agents option yet; ignored` });
      }
      try {
        const r = await runTask(runtime, {
          taskId,
          prompt: spec.prompt,
          workspace: spec.workspace,
          config: opts.config,
          configPath: opts.configPath,
          yolo: spec.options.yolo,
          fullYolo: spec.options.fullYolo,
          signal,
        });
        return {
          taskId,
          text: r.text,
          stopReason: r.stopReason,
          usage: r.usage,
          notes: r.notes.map((n) => n.ref),
          rolloutPath: r.rolloutPath,
          error: r.error !== undefined ? { name: 'TaskError', message: r.error } : undefined,
        };
      } catch (err) {
        // runTask publishes task_end only on a normal return; every client's stream must still end
        const stopReason = signal.aborted ? 'cancelled' : 'panic';
        runtime.publish({ name: 'client', taskId }, { type: 'task_end', stopReason });
        return { taskId, text: '', stopReason, usage: ZERO_USAGE, notes: [], rolloutPath: null, error: signal.aborted ? undefined : serializeError(err) };
      } finally {
        signal.removeEventListener('abort', onAbort);
        clearTimeout(force);
        await runtime.endTask(taskId).catch(() => undefined);
      }
    },
    subscribe(filter, onEnvelope) {
      const { mailbox } = runtime.dispatcher.consume(
        { name: `client-${++subscribers}`, filter: filter.taskId !== undefined ? { taskId: filter.taskId } : {}, fromSeq: filter.taskId !== undefined ? 0 : undefined },
        onEnvelope,
      );
      return () => mailbox.close();
    },
    pause: (taskId) => runtime.pauseTask(taskId),
    resume: (taskId) => runtime.resumeTask(taskId),
    respond: (_taskId, r) => runtime.respondUserHelp({ requestId: r.requestId, approved: r.approved, answer: r.answer, scope: r.scope }),
    tree: () => runtime.snapshot(),
    async timeline(taskId, limit) {
      return (await store.timeline(taskId, { limit })).entries;
    },
    async memory(taskId) {
      return store.loadTaskMemory(taskId);
    },
    async drain(timeoutMs) {
      return runtime.tasks.drain(timeoutMs);
    },
    async shutdown() {
      await store.flush().catch(() => undefined);
      await runtime.shutdown();
    },
  };
}
