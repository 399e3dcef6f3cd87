// The agent actor: one worker per agent instance (Director or a delegation), wired from its ActorContext.
import { defineActor, type ActorContext } from '../../runtime/actor.js';
import { loadConfig, type YagentConfig } from '../../runtime/config/index.js';
import { connectStore } from '../../store/client.js';
import { CPU_SERVICE, type CpuService } from '../../runtime/cpu-service.js';
import { poolBackend } from '../llm/tokens.js';
import { actorAuthorizer } from '../tools/authorizer.js';
import { runAgent, type AgentEnv } from './run-agent.js';
import { buildAgentEnv, type AgentHost } from './agent-env.js';
import { AgentRunInputSchema, type AgentRunInput, type AgentRunOutput } from './run-types.js';
import { AGENT_MODULE } from './agent-module.js';
import { mcpToolsFor } from '../mcp/agent-tools.js';
import { prefetchSdk } from './sdk-prefetch.js';
import { CODESEEK_ACTOR, type CodeSeekApi } from '../codeseek/client.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

export { AGENT_MODULE };

const configs = new Map<string, Promise<YagentConfig>>();
function configFor(path: string | undefined): Promise<YagentConfig> {
  const key = path ?? '';
  let c = configs.get(key);
  if (!c) configs.set(key, (c = loadConfig(path !== undefined ? { configPath: path } : {}).then((r) => r.config)));
  return c;
}

/** The worker's host services: store over RPC, approvals and questions over the critical lane, children as workers. */
export function actorHost(ctx: ActorContext): AgentHost {
  return {
    store: connectStore(ctx),
    publish: (e) => ctx.publish(e),
    clock: ctx.clock,
    pause: ctx.pause,
    childPause: (name) => ctx.childPause(name),
    signal: ctx.signal,
    shared: ctx.shared,
    authorizer: actorAuthorizer(ctx),
    askUser: async (agent, question) => {
      const res = await ctx.requestUserHelp({ agent, kind: 'question', question }, ctx.signal);
      return res.answer ?? (res.approved ? 'yes' : 'no');
    },
    spawn: (name, input, delegationId, signal) => ctx.spawn<AgentRunInput, AgentRunOutput>({ name, module: AGENT_MODULE, input, delegationId }, signal),
    // counts run on the process's one CPU pool (the main thread relays): no agent worker loads the ranks
    tokens: poolBackend(ctx.connect<CpuService>(CPU_SERVICE)),
    code: ctx.connect<CodeSeekApi>(CODESEEK_ACTOR),
  };
}

/** Production wiring: no seams (the in-process harness calls buildAgentEnv with its own host and seams). */
export function actorEnv(ctx: ActorContext, config: YagentConfig): AgentEnv {
  return buildAgentEnv(actorHost(ctx), config);
}

/** The run in flight (one per worker): a stop waits for its terminal path (stop record, checkpoint) within the grace. */
let running: Promise<unknown> | null = null;

export default defineActor<AgentRunInput, AgentRunOutput>({
  kind: 'agent',
  async run(ctx, raw) {
    const input = AgentRunInputSchema.parse(raw);
    // the run's first act is opening its rollout: the store's port is brokered while the config loads
    connectStore(ctx, { open: true });
    const config = await configFor(input.settings.configPath);
    const mcp = await mcpToolsFor((name) => ctx.connect(name), config, input.role, (e) => ctx.publish(e), ctx.shared);
    const run = runAgent(buildAgentEnv({ ...actorHost(ctx), external: mcp.initial, refreshExternal: mcp.refresh }, config), input);
    // the SDK and the transport (synchronous loads) start one turn later, once the run has posted its store calls and
    // waits for the root docs: they fill that wait instead of delaying the first call
    ctx.tasks.go('sdk-prefetch', () => nextTurn().then(() => prefetchSdk(config, input.agent)));
    running = run.catch(() => undefined); // stop() only waits for it: the run's own failure goes back through `return run`
    return run;
  },
  // the signal is already aborted: the loop ends at its next step boundary and writes stop + checkpoint
  // (recovery B reads them); the host still terminates the worker when its shutdown grace runs out
  async stop() {
    await running;
  },
});
