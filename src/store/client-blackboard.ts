// Pure blackboard helpers for actors (they import only the store's api/client/types): handoff text, index
// injection, normalised config → Index/GcOptions. Defined in blackboard/; store internals import them there.
export { INDEX_HEADER_PREFIX, renderHandoff, injectIndex } from './blackboard/handoff-text.js';
export { NO_TRIM, blackboardEnabled, indexOptionsFromConfig, gcOptionsFromConfig, type BlackboardConfig } from './blackboard/options.js';
