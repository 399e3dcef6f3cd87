// Entry of the agent's thread bundle (AGENT_THREAD): the worker bootstrap with the agent actor built in.
import { builtinModules, startWorker } from '../../runtime/worker-bootstrap.js';
import { flushTrainedCaches } from '../../runtime/code-cache.js';
import * as agentActor from './agent-actor.js';
import { AGENT_MODULE } from './agent-module.js';

startWorker(
  builtinModules(
    { [AGENT_MODULE]: agentActor },
    // literal imports, so the bundler resolves each (zod inlined; the SDKs through the bundle's require)
    { zod: () => import('zod'), openai: () => import('openai'), '@anthropic-ai/sdk': () => import('@anthropic-ai/sdk') },
    flushTrainedCaches,
  ),
);
