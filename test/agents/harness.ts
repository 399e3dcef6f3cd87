// In-process harness: the model is scripted per agent identity; store, tools, prompts and the loop are real.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { LlmEngine, LlmRequest, LlmResponse } from '../../src/actors/llm/types.js';
import type { Event, ToolCall } from '../../src/runtime/protocol/index.js';
import { StoreService } from '../../src/store/service.js';
import { toolStoreAccess } from '../../src/store/client.js';
import { realClock } from '../../src/runtime/clock.js';
import { PauseController } from '../../src/runtime/pause.js';
import { runAgent, type AgentEnv } from '../../src/actors/agents/run-agent.js';
import { ProjectContext } from '../../src/actors/agents/project-context.js';
import { buildToolPort, paletteNames } from '../../src/actors/agents/tool-wiring.js';
import type { AgentRunInput, RunSettings } from '../../src/actors/agents/run-types.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';

export interface Reply {
  text?: string;
  calls?: { name: string; args: Record<string, unknown>; id?: string }[];
  /** Never answers: waits for the request's signal (a stalled provider). */
  stall?: boolean;
  fail?: string;
}
export type Step = Reply | ((req: LlmRequest) => Reply);

/** Scripted per agent identity, never by global call order; looks at the signal first. */
export class ScriptedModel implements LlmEngine {
  readonly requests: LlmRequest[] = [];
  private readonly cursor = new Map<string, number>();
  private seq = 0;
  constructor(private readonly scripts: Record<string, Step[]>) {}

  byAgent(agent: string): LlmRequest[] {
    return this.requests.filter((r) => r.agent === agent);
  }

  describe(): { provider: string; model: string } {
    return { provider: 'scripted', model: 'scripted-1' };
  }

  async call(req: LlmRequest): Promise<LlmResponse> {
    if (req.signal.aborted) throw new Error('aborted before call');
    this.requests.push({ ...req, messages: [...req.messages] });
    const script = this.scripts[req.agent] ?? [];
    const i = this.cursor.get(req.agent) ?? 0;
    this.cursor.set(req.agent, i + 1);
    const step = script[i] ?? { text: `(script for ${req.agent} exhausted)` };
    const reply = typeof step === 'function' ? step(req) : step;
    if (reply.stall) {
      await new Promise<void>((_, reject) => req.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    }
    if (reply.fail) throw Object.assign(new Error(reply.fail), { code: 'LLM_FAIL' });
    const toolCalls: ToolCall[] = (reply.calls ?? []).map((c) => ({ id: c.id ?? `call_${req.agent}_${++this.seq}`, name: c.name, arguments: JSON.stringify(c.args) }));
    if (reply.text) req.onTextDelta?.(reply.text);
    return {
      text: reply.text ?? '',
      toolCalls,
      reasoning: [],
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 },
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      provider: 'scripted',
      model: 'scripted-1',
    };
  }
}

export const THOUGHT = '<thought>\ngoal: do the task\nstep: next\nreason: needed\nplan:\n[>] next\n</thought>';

export function exitCall(conclusion: string, status: 'ok' | 'partial' | 'error' = 'ok', facts: string[] = []): Reply {
  return { calls: [{ name: 'agent_exit', args: { conclusion, status, facts, artifacts: [] } }] };
}

export interface Harness {
  root: string;
  workspace: string;
  store: StoreService;
  events: Event[];
  settings: RunSettings;
  pause: PauseController;
  env(model: LlmEngine, over?: Partial<AgentEnv> & { authorizer?: Authorizer }): AgentEnv;
  run(model: LlmEngine, prompt: string, over?: Partial<AgentEnv> & { authorizer?: Authorizer }): ReturnType<typeof runAgent>;
}

/** `root` reuses an earlier harness's temp dir: a new run (fresh store) over the same YAGENT_HOME and workspace. */
export function makeHarness(settingsOver: Partial<RunSettings> = {}, opts: { root?: string } = {}): Harness {
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'yagent-agents-'));
  const workspace = join(root, 'ws');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'hello.txt'), 'hello world\n');
  // the data root comes from YAGENT_HOME, as in production; the test owns the temp dir
  const store = new StoreService({ env: { YAGENT_HOME: join(root, 'home') } });
  const events: Event[] = [];
  const pause = new PauseController();
  const settings: RunSettings = {
    workspace,
    taskId: `task-${randomUUID().slice(0, 8)}`,
    boardId: `board-${randomUUID().slice(0, 8)}`,
    projectId: 'proj',
    yolo: false,
    fullYolo: false,
    lang: 'English',
    maxParallelDelegations: 2,
    delegateIdleMs: 60_000,
    delegateTotalMs: 20 * 60_000,
    artifactTokenBudget: 500,
    maxStepsOverride: {},
    indexMaxNotes: 12,
    indexLineChars: 160,
    disabledAgents: [],
    ...settingsOver,
  };
  const contexts = new Map<string, ProjectContext>();
  const h: Harness = {
    root,
    workspace,
    store,
    events,
    settings,
    pause,
    env(model, over = {}) {
      const { authorizer, ...rest } = over;
      const signal = rest.signal ?? new AbortController().signal;
      const publish = (e: Event): void => void events.push(e);
      const base: AgentEnv = {
        store,
        engineFor: () => model,
        toolsFor: (input, hooks) =>
          buildToolPort(input, hooks, {
            publish,
            authorizer: authorizer ?? (() => Promise.resolve({ decision: 'unavailable', reason: 'headless test' })),
            store: toolStoreAccess(store),
            grantStore: store,
            askUser: () => Promise.reject(new Error('nobody to ask')),
            runSignal: signal,
            newId: () => randomUUID(),
          }),
        spawn: (_name, input, _delegationId, childSignal) => runAgent({ ...h.env(model, { ...over, signal: childSignal }) }, input),
        publish,
        clock: realClock,
        pause,
        signal,
        newId: () => randomUUID(),
        projectContext: (ws) => {
          let c = contexts.get(ws);
          if (!c) contexts.set(ws, (c = new ProjectContext(ws)));
          return c;
        },
        palette: () => paletteNames(),
        retryBackoffMs: 0,
        ...rest,
      };
      return base;
    },
    run(model, prompt, over = {}) {
      const input: AgentRunInput = { agent: 'director', role: 'director', brief: prompt, settings, delegationId: null, parentSessionId: null };
      return runAgent(h.env(model, over), input);
    },
  };
  return h;
}

export function toolMessages(req: LlmRequest): string[] {
  return req.messages.filter((m) => m.role === 'tool').map((m) => m.content);
}
