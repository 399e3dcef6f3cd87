// Imported by hub.ts before the MCP SDK, and `sdk-zod-end.ts` after it: the SDK's zod schemas are built with zod's
// JIT. Our vendored zod turns it off for the whole thread (scripts/vendor-packages.mjs: our threads parse a few
// hundred messages each) through zod's global config, which the SDK's own zod shares, and zod decides per schema
// when the schema is built. The SDK parses every message of every call in the mcp worker (the JSON-RPC union, the
// call's result): jitless that cost ~6 µs a call more than the bare client pays (issue 29, `--cpu-prof`).
import { config } from 'zod';

const before = config().jitless;
config({ jitless: false });

/** The SDK's modules are evaluated: the thread's own setting again. */
export function sdkSchemasBuilt(): void {
  config({ jitless: before });
}
