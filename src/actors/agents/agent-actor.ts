// The agent actor: one worker per agent instance (Director or a delegation), wired from its ActorContext.
import { randomUUID } from 'node:crypto';
import { defineActor, type ActorContext } from '../../runtime/actor.js';
import { loadConfig, type YagentConfig } from '../../runtime/config/index.js';
import { connectStore, toolStoreAccess } from '../../store/client.js';
import { buildAgentEngine } from '../llm/build.js';
import { countTextTokens } from '../llm/tokens.js';
import { actorAuthorizer } from '../tools/authorizer.js';
import { runAgent, type AgentEnv } from './run-agent.js';
import { ProjectContext } from './project-context.js';
import { buildToolPort, paletteNames } from './tool-wiring.js';
import { AgentRunInputSchema, type AgentRunInput, type AgentRunOutput } from './run-types.js';
import { AGENT_MODULE } from './agent-module.js';

export { AGENT_MODULE };

const configs = new Map<string, Promise<YagentConfig>>();
function configFor(path: string | undefined): Promise<YagentConfig> {
  const key = path ?? '';
  let c = configs.get(key);
  if (!c) configs.set(key, (c = loadConfig(path !== undefined ? { configPath: path } : {}).then((r) => r.config)));
  return c;
}

export function actorEnv(ctx: ActorContext, config: YagentConfig): AgentEnv {
  const store = connectStore(ctx);
  const contexts = new Map<string, ProjectContext>();
  const publish = (e: Parameters<ActorContext['publish']>[0]): void => ctx.publish(e);
  return {
    store,
    engineFor: (input) => buildAgentEngine(config, input.agent, { publish, shared: ctx.shared, clock: ctx.clock }),
    toolsFor: (input, hooks) =>
      buildToolPort(input, hooks, {
        publish,
        authorizer: actorAuthorizer(ctx),
        grantStore: store,
        store: toolStoreAccess(store),
        askUser: async (question) => {
          const res = await ctx.requestUserHelp({ agent: input.agent, kind: 'question', question }, ctx.signal);
          return res.answer ?? (res.approved ? 'yes' : 'no');
        },
        runSignal: ctx.signal,
        newId: () => randomUUID(),
      }),
    spawn: (name, input, delegationId, signal) => ctx.spawn<AgentRunInput, AgentRunOutput>({ name, module: AGENT_MODULE, input, delegationId }, signal),
    publish,
    clock: ctx.clock,
    pause: ctx.pause,
    signal: ctx.signal,
    newId: () => randomUUID(),
    projectContext: (ws) => {
      let c = contexts.get(ws);
      if (!c) contexts.set(ws, (c = new ProjectContext(ws)));
      return c;
    },
    palette: () => paletteNames(),
    countTokens: countTextTokens,
    breaker: { threshold: 3, cooldownMs: 60_000 },
  };
}

export default defineActor<AgentRunInput, AgentRunOutput>({
  kind: 'agent',
  async run(ctx, raw) {
    const input = AgentRunInputSchema.parse(raw);
    const config = await configFor(input.settings.configPath);
    return runAgent(actorEnv(ctx, config), input);
  },
});
