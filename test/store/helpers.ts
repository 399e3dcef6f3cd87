// Test helpers for the store: every test owns its data root.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Handoff } from '../../src/runtime/protocol/index.js';
import type { SessionStart } from '../../src/store/api.js';
import { StoreService, type StoreOptions } from '../../src/store/service.js';

export function tempRoot(prefix = 'yagent-store-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function storeIn(dir: string, opts: StoreOptions = {}): StoreService {
  return new StoreService({ env: { YAGENT_HOME: dir }, ...opts });
}

/** What production passes: the store itself adds git from `cwd` (git-identity.test.ts). */
export function meta(over: Partial<SessionStart> = {}): SessionStart {
  return {
    sessionId: 'sess-1',
    taskId: 'task-1',
    agent: 'director',
    projectId: 'proj-abc',
    cwd: '/tmp/ws',
    delegationId: null,
    parentSessionId: null,
    boardId: 'sess-1',
    ...over,
  };
}

export function handoff(over: Partial<Handoff> = {}): Handoff {
  return { version: 2, agent: 'repo', status: 'ok', conclusion: 'done', facts: [], artifacts: [], mentions: [], ...over };
}
