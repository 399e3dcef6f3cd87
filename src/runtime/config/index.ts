// Public surface of the configuration module (runtime layer: imports only protocol and runtime).
export * from './types.js';
export * from './errors.js';
export * from './env.js';
export { parseDuration } from './duration.js';
export { isLoopbackUrl } from './loopback.js';
export { concurrencyKnob, valve, defaultTrue, zeroIsUnset, DEFAULTS } from './knobs.js';
export { REMOVED_KEYS, removedKeyWarnings } from './removed-keys.js';
export { RESERVED_KEYS, reservedKeyWarnings } from './reserved-keys.js';
export { unknownKeyWarnings } from './unknown-keys.js';
export { schemaKeyPaths } from './schema-keys.js';
export { CONFIG_TEMPLATE, PLACEHOLDER_API_KEY } from './template.js';
export { defaultConfigPath, ensureConfigExists, loadConfig, parseConfigText, type LoadOptions } from './loader.js';
export { resolveProvider, resolveProviderName, referencedProviders, withProviderModel } from './resolve.js';
export { setKeyInSection, removeProviderSection, persistKey, deleteProvider, writeConfigText, encodeValue, type TomlValue, type WriteBackOptions } from './persist.js';
export { setupState, type SetupState } from './setup-state.js';
export { createSharedLlmState, sharedViews, LLM_SHARED_KEY, LLM_SHARED_LAYOUT } from './llm-shared.js';
