// A task's RunSettings from its options and config (run-task.ts): a module of its own, so the CLI's pre-sent first
// request (bin/host/presend.ts) computes the same settings without loading the task runner (node:crypto, the
// session and supervision modules) before it sends.
import { resolve } from 'node:path';
import type { YagentConfig } from '../../runtime/config/index.js';
import { projectIdFor } from '../../store/client.js';
import { indexOptionsFromConfig } from '../../store/client-blackboard.js';
import { resolveDisabledAgents } from './profiles.js';
import type { RunSettings } from './run-types.js';
import type { RunTaskOptions } from './run-task.js';

/** Deliverables over this many tokens go to an artifact; the context keeps a summary and the id (seeds §4). */
export const DEFAULT_ARTIFACT_TOKEN_BUDGET = 500;

export function settingsFrom(o: RunTaskOptions, taskId: string, boardId: string): RunSettings {
  const a = o.config.agent;
  const fullYolo = o.fullYolo === true;
  // the one conversion of the [blackboard] valves (0 = off / 0 = no trim) lives in the store client
  const index = indexOptionsFromConfig(o.config.blackboard);
  return {
    workspace: resolve(o.workspace),
    taskId,
    boardId,
    projectId: projectIdFor(o.workspace),
    yolo: fullYolo || o.yolo === true,
    fullYolo,
    lang: a.lang,
    ...(o.configPath !== undefined ? { configPath: o.configPath } : {}),
    maxParallelDelegations: Math.max(1, a.maxParallelDelegations),
    delegateIdleMs: a.delegateIdleTimeoutMs,
    delegateTotalMs: a.delegateTotalTimeoutMs,
    artifactTokenBudget: DEFAULT_ARTIFACT_TOKEN_BUDGET,
    artifacts: o.config.artifact.enabled,
    stepRetries: o.config.llm.stepRetries,
    maxStepsOverride: { ...a.maxSteps },
    maxParallelReadOnlyTools: a.maxParallelReadonlyTools,
    indexMaxNotes: index.maxNotes,
    indexLineChars: index.maxLineChars,
    // `[browser] enable = false` removes the Browser agent like -d browser does
    disabledAgents: resolveDisabledAgents([...(o.disabledAgents ?? []), ...(o.config.browser.enabled ? [] : ['browser'])]),
    ...(o.provider !== undefined || o.model !== undefined ? { providerOverride: knownProvider(o.config, o.provider ?? o.config.agentsDefaultProvider ?? o.config.globalProvider) } : {}),
    ...(o.model !== undefined ? { modelOverride: o.model } : {}),
    resume: o.config.resume.enabled,
    maxReplayMessages: o.config.resume.maxReplayMessages,
    maxRestarts: o.config.resume.maxRestarts,
    checkpointWorkspace: o.config.resume.checkpointWorkspace,
    degradeOnWorkspaceChange: o.config.resume.degradeOnWorkspaceChange,
    compression: compressionSettings(o.config.compression),
  };
}

/** A provider override must name a configured provider (a typo fails the turn, it never falls back silently). */
function knownProvider(config: YagentConfig, name: string): string {
  const known = Object.keys(config.providers);
  if (!known.includes(name)) throw new Error(`unknown provider "${name}" (configured: ${known.join(', ')})`);
  return name;
}

/** `[enhanced_commander]` for the loop (undefined thresholds stay absent: the catalogue or 120000 decides). */
function compressionSettings(c: YagentConfig['compression']): RunSettings['compression'] {
  return {
    enabled: c.enabled,
    ...(c.threshold !== undefined ? { threshold: c.threshold } : {}),
    ...(c.envOverride !== undefined ? { envOverride: c.envOverride } : {}),
    toolResultKeepTokens: c.toolResultKeepTokens,
    enableUltimate: c.enableUltimate,
    ultimateKeepPlans: c.ultimateKeepPlans,
  };
}
