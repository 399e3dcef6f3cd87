// Where the agent actor lives (relative to dist/): a leaf module, so clients name it without loading the agent graph.

/** Module path of the agent actor relative to dist/ (what SpawnSpec.module names). */
export const AGENT_MODULE = 'src/actors/agents/agent-actor.js';
