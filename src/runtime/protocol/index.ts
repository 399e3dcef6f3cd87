// Leaf protocol module: every cross-thread message and event. Imports nothing but zod.
export * from './messages.js';
export * from './errors.js';
export * from './stop.js';
export * from './handoff.js';
export * from './events.js';
export * from './envelope.js';
export * from './runtime.js';
