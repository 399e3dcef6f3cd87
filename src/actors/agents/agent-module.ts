// Where the agent actor lives (relative to dist/): a leaf module, so clients name it without loading the agent graph.

/** Module path of the agent actor relative to dist/ (what SpawnSpec.module names): agent-actor.ts and its graph
 *  bundled into one file by scripts/bundle-entries.mjs (npm run build), src/runtime/** left external. */
export const AGENT_MODULE = 'src/actors/agents/agent-actor.bundle.js';
