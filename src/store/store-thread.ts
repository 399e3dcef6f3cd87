// Entry of the store's thread bundle (STORE_THREAD): the worker bootstrap with the store actor built in.
import { builtinModules, startWorker } from '../runtime/worker-bootstrap.js';
import { flushTrainedCaches } from '../runtime/code-cache.js';
import * as storeActor from './store-actor.js';
import { STORE_MODULE } from './store-module.js';

startWorker(builtinModules({ [STORE_MODULE]: storeActor }, { zod: () => import('zod') }, flushTrainedCaches));
