// Where the agent actor lives (relative to dist/): a leaf module, so clients name it without loading the agent graph.
import type { ThreadBundle } from '../../runtime/spare-boot.js';

/** Module path of the agent actor relative to dist/ (what SpawnSpec.module names). */
export const AGENT_MODULE = 'src/actors/agents/agent-actor.js';

/** The agent's thread: the worker bootstrap, this actor and its packages as one code-cached CommonJS bundle
 *  (agent-thread.ts, built by scripts/bundle-entries.mjs). The SDKs are bundles of their own, loaded on first use:
 *  a worker that speaks one format never reads the other. */
export const AGENT_THREAD: ThreadBundle = {
  entry: 'src/actors/agents/agent-thread.js',
  bundle: 'src/actors/agents/agent-thread.cjs',
  modules: [AGENT_MODULE],
  packages: ['zod', 'openai', '@anthropic-ai/sdk'],
  requires: { openai: 'node_modules/openai/index.cjs', '@anthropic-ai/sdk': 'node_modules/@anthropic-ai/sdk/index.cjs' },
};
