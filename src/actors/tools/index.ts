// Public entry of the tools area: what the agents layer wires (surface, adapter, batch, guard, authorization).
export type * from './types.js';
export { surfaceFor, directorPalette, PROFILES, AGENT_KINDS, AUTONOMOUS_DECISION_INSTRUCTION, type AgentKind, type SurfaceOptions } from './profiles.js';
export { Surface, type CatalogueEntry } from './surface.js';
export { callTool, FatalToolError, isFatal, type AdapterDeps, type ToolResult, type ToolStatus } from './adapter.js';
export { runBatch, planBatches, isParallelizable, MaxParallelReadonlySchema, DEFAULT_MAX_PARALLEL_READONLY, type BatchOptions, type BatchResult } from './batch.js';
export { WorkspaceGuard, type GuardReason } from './workspace-guard.js';
export { Grants, type ProjectGrants, type GrantScope } from './grants.js';
export { actorAuthorizer, headlessAuthorizer, type Authorizer, type AuthDecision, type AuthRequest } from './authorizer.js';
export { BUILTIN_TOOLS, validateRegistry, assertRegistry } from './registry.js';
export { renderParameters } from './define.js';
