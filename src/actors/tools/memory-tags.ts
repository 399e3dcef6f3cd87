// Shared tags of the blackboard/artifact readers: read-only, parallel-safe, reached through the store actor.
import type { CapabilityTags } from './types.js';
import { readTags } from './define.js';

export const memoryTags = (brief: CapabilityTags['brief']): CapabilityTags =>
  readTags({ effect: 'memory', display: 'text', brief });
