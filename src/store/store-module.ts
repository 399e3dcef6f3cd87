// Where the store actor lives (relative to dist/): a leaf module, so the CLI can prestart its worker without loading the store graph.
import type { ThreadBundle } from '../runtime/spare-boot.js';

/** Module path of the store actor relative to dist/ (what SpawnSpec.module names). */
export const STORE_MODULE = 'src/store/store-actor.js';

/** The store's thread: the worker bootstrap and this actor as one code-cached CommonJS bundle (store-thread.ts). */
export const STORE_THREAD: ThreadBundle = {
  entry: 'src/store/store-thread.js',
  bundle: 'src/store/store-thread.cjs',
  modules: [STORE_MODULE],
  packages: ['zod'],
};
