// See sdk-zod.ts: imported by hub.ts after every MCP SDK module it loads.
import { sdkSchemasBuilt } from './sdk-zod.js';

sdkSchemasBuilt();
