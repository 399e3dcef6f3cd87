// In-process harness: the model is scripted per agent identity; store, tools, prompts and the loop are real.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { LlmEngine, LlmRequest, LlmResponse } from '../../src/actors/llm/types.js';
import type { Event, ToolCall } from '../../src/runtime/protocol/index.js';
import type { Clock, PauseGate } from '../../src/runtime/actor.js';
import { parseConfigText, type YagentConfig } from '../../src/runtime/config/index.js';
import { StoreService } from '../../src/store/service.js';
import { realClock } from '../../src/runtime/clock.js';
import { PauseController } from '../../src/runtime/pause.js';
import { runAgent, type AgentEnv } from '../../src/actors/agents/run-agent.js';
import { buildAgentEnv, type AgentHost } from '../../src/actors/agents/agent-env.js';
import type { SpawnChild } from '../../src/actors/agents/delegation.js';
import { settingsFrom } from '../../src/actors/agents/run-task.js';
import type { AgentRunInput, RunSettings } from '../../src/actors/agents/run-types.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';

export interface Reply {
  text?: string;
  calls?: { name: string; args: Record<string, unknown>; id?: string }[];
  /** Never answers: waits for the request's signal (a stalled provider). */
  stall?: boolean;
  fail?: string;
  /** The error's code with `fail` (default LLM_FAIL; CONTEXT_LENGTH = the provider's "does not fit"). */
  code?: string;
  /** Input tokens the provider reports (default 10). */
  inputTokens?: number;
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
    if (reply.fail) throw Object.assign(new Error(reply.fail), { code: reply.code ?? 'LLM_FAIL' });
    const toolCalls: ToolCall[] = (reply.calls ?? []).map((c) => ({ id: c.id ?? `call_${req.agent}_${++this.seq}`, name: c.name, arguments: JSON.stringify(c.args) }));
    if (reply.text) req.onTextDelta?.(reply.text);
    return {
      text: reply.text ?? '',
      toolCalls,
      reasoning: [],
      usage: { inputTokens: reply.inputTokens ?? 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 },
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

/** Per-call host ports a test may set (the child runs get the same ones); everything else is production's. */
export interface HarnessOver {
  authorizer?: Authorizer;
  signal?: AbortSignal;
  spawn?: SpawnChild;
  backstopGraceMs?: number;
  clock?: Clock;
  /** This run's own pause gate (default: the task's, `Harness.pause`). */
  pause?: PauseController;
  /** `ctx.childPause`: a child's own pause by actor name, as a worker mirrors it. */
  childPause?: (name: string) => PauseGate;
}

/** `null` = no scripted model: the engine the harness config builds (e.g. pointing at the fake provider). */
export type HarnessModel = LlmEngine | null;

export interface Harness {
  root: string;
  workspace: string;
  store: StoreService;
  events: Event[];
  settings: RunSettings;
  config: YagentConfig;
  pause: PauseController;
  env(model: HarnessModel, over?: HarnessOver): AgentEnv;
  run(model: HarnessModel, prompt: string, over?: HarnessOver): ReturnType<typeof runAgent>;
}

// a provider nobody listens on: runs reach a model only through the engineFor seam or a test's own config
const HARNESS_CONFIG = '[global.llm]\nuse_provider = "none"\n[global.llm.providers.none]\nmodel = "m"\napi_base_url = "http://127.0.0.1:1/v1"\napi_key = "k"\n[routing]\nmode = "fixed"\n';

/** The harness's config (settings go through production's settingsFrom); `extra` TOML and a private env on top. */
export function harnessConfig(extra = '', env: Record<string, string> = {}): YagentConfig {
  return parseConfigText(`${HARNESS_CONFIG}${extra}`, '/tmp/yagent-harness-config.toml', env);
}

/** `root` reuses an earlier harness's temp dir: a new run (fresh store) over the same YAGENT_HOME and workspace.
 *  The env is production's `buildAgentEnv`; the harness swaps only the host (in-process store, spawn, events)
 *  and the seams (model endpoint, zero retry backoff, clock). */
export function makeHarness(settingsOver: Partial<RunSettings> = {}, opts: { root?: string; config?: YagentConfig } = {}): Harness {
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'yagent-agents-'));
  const workspace = join(root, 'ws');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'hello.txt'), 'hello world\n');
  // the data root comes from YAGENT_HOME, as in production; the test owns the temp dir
  const store = new StoreService({ env: { YAGENT_HOME: join(root, 'home') } });
  const events: Event[] = [];
  const pause = new PauseController();
  const childGates = new Map<string, PauseController>();
  const childGate = (name: string): PauseController => {
    let g = childGates.get(name);
    if (!g) childGates.set(name, (g = new PauseController()));
    return g;
  };
  const config = opts.config ?? harnessConfig();
  const taskId = `task-${randomUUID().slice(0, 8)}`;
  const settings: RunSettings = {
    ...settingsFrom({ prompt: '', workspace, config }, taskId, `board-${randomUUID().slice(0, 8)}`),
    ...settingsOver,
  };
  const h: Harness = {
    root,
    workspace,
    store,
    events,
    settings,
    config,
    pause,
    env(model, over = {}) {
      const signal = over.signal ?? new AbortController().signal;
      const host: AgentHost = {
        store,
        publish: (e) => void events.push(e),
        clock: over.clock ?? realClock,
        pause: over.pause ?? pause,
        // as a worker mirrors them: one gate per child name, paused only when a test pauses that child alone
        childPause: over.childPause ?? ((name) => childGate(name)),
        signal,
        authorizer: over.authorizer ?? (() => Promise.resolve({ decision: 'unavailable', reason: 'headless test' })),
        askUser: () => Promise.reject(new Error('nobody to ask')),
        spawn: over.spawn ?? ((_name, input, _delegationId, childSignal) => runAgent(h.env(model, { ...over, signal: childSignal }), input)),
      };
      return buildAgentEnv(host, config, {
        ...(model !== null ? { engineFor: () => model } : {}),
        retryBackoffMs: 0,
        ...(over.backstopGraceMs !== undefined ? { backstopGraceMs: over.backstopGraceMs } : {}),
      });
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
