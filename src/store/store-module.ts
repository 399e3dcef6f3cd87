// Where the store actor lives (relative to dist/): a leaf module, so the CLI can prestart its worker without loading the store graph.

/** store-actor.ts bundled into one file by scripts/bundle-entries.mjs (npm run build), src/runtime/** external. */
export const STORE_MODULE = 'src/store/store-actor.bundle.js';
