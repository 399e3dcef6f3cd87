// Public surface of the llm area: the engine factory, the engine contract, catalogue, tokens (the fake provider is
// not part of it: demo and tests import `fake/server.ts` directly, and production code never imports a fake).
export type { LlmEngine, LlmRequest, LlmResponse } from './types.js';
export { buildAgentEngine, buildToolEngine, type EngineDeps } from './build.js';
export type { RoutingEngine } from './routing/router.js';
export { LlmError, type LlmErrorCode } from './errors.js';
export { modelLimits, compressionThreshold } from './catalogue/catalogue.js';
export { TokenCounter, encodingFor, poolBackend, inPlaceBackend, type TokenBackend, type Encoding } from './tokens.js';
export { createSharedLlmState, LLM_SHARED_KEY } from '../../runtime/config/index.js';
