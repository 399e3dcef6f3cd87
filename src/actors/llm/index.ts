// Public surface of the llm area: the engine factory, the engine contract, catalogue, tokens, the fake provider.
export type { LlmEngine, LlmRequest, LlmResponse } from './types.js';
export { buildAgentEngine, buildToolEngine, type EngineDeps } from './build.js';
export type { RoutingEngine } from './routing/router.js';
export { LlmError, type LlmErrorCode } from './errors.js';
export { modelLimits, compressionThreshold } from './catalogue/catalogue.js';
export { TokenCounter, encodingFor, poolBackend, inPlaceBackend, type TokenBackend, type Encoding } from './tokens.js';
export { FakeProvider, type FakeProviderOptions } from './fake/server.js';
export type { FakeReply, FakeStep, FakeFault, RecordedRequest } from './fake/script.js';
export { createSharedLlmState, LLM_SHARED_KEY } from '../../runtime/config/index.js';
