// Shared fixtures of the tools tests: temp workspaces, a ToolEnv, adapter deps wired like production.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCall } from '../../src/runtime/protocol/index.js';
import type { ToolEnv } from '../../src/actors/tools/types.js';
import type { AdapterDeps } from '../../src/actors/tools/adapter.js';
import { surfaceFor, type AgentKind, type SurfaceOptions } from '../../src/actors/tools/profiles.js';
import { WorkspaceGuard } from '../../src/actors/tools/workspace-guard.js';
import { Grants, type ProjectGrants } from '../../src/actors/tools/grants.js';
import { headlessAuthorizer, type Authorizer } from '../../src/actors/tools/authorizer.js';
import type { Surface } from '../../src/actors/tools/surface.js';
import { Boundary, boundaryPolicy } from '../../src/actors/tools/boundary.js';

export function tempDir(prefix = 'yagent-tools-'): { path: string; cleanup(): void } {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export function makeEnv(workspace: string, over: Partial<ToolEnv> = {}): ToolEnv {
  return {
    workspace,
    agent: 'coding',
    taskId: 'task-1',
    delegationId: null,
    boardId: 'board-1',
    askUser: () => Promise.reject(new Error('nobody to ask')),
    store: {
      listNotes: () => Promise.resolve('no notes'),
      readNote: (_b, ref) => Promise.resolve(`note ${ref}`),
      readArtifact: (id) => Promise.resolve(`artifact ${id}`),
      writeArtifact: () => Promise.resolve('artifact-1'),
      writeImageArtifact: () => Promise.resolve('artifact-image-1'),
    },
    delegate: (agent, args) => Promise.resolve({ kind: 'ok', content: `${agent} did ${args.task}` }),
    ...over,
  };
}

export interface DepsOptions {
  agent?: AgentKind;
  surface?: Surface;
  surfaceOptions?: SurfaceOptions;
  authorizer?: Authorizer;
  yolo?: boolean;
  project?: ProjectGrants;
  env?: Partial<ToolEnv>;
  /** `[security] allow_read` (the zones come from process.env HOME / YAGENT_HOME, like production). */
  allowRead?: string[];
}

export function makeDeps(workspace: string, o: DepsOptions = {}): AdapterDeps {
  // one boundary for the guard and the walkers, as tool-wiring.ts does
  const boundary = new Boundary(workspace, boundaryPolicy(process.env, o.allowRead ?? []));
  return {
    surface: o.surface ?? surfaceFor(o.agent ?? 'coding', o.surfaceOptions),
    guard: new WorkspaceGuard(workspace, boundary, o.env?.shellEnv, o.env?.sandbox),
    grants: new Grants(o.yolo ?? false, o.project ?? null),
    authorizer: o.authorizer ?? headlessAuthorizer,
    env: makeEnv(workspace, { boundary, ...o.env }),
  };
}

let seq = 0;
export function call(name: string, args: unknown, id = `call_${++seq}`): ToolCall {
  return { id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

/** In-memory ProjectGrants (the store engineer's settings.json writer implements the same interface). */
export function memoryProjectGrants(): ProjectGrants & { keys: string[] } {
  const keys: string[] = [];
  return { keys, list: () => Promise.resolve([...keys]), add: (k) => Promise.resolve(void keys.push(...k)) };
}

/** A pid counts as gone when it does not exist or is a zombie waiting for a reaper. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = procStat(pid);
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

function procStat(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8');
}
