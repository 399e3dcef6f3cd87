// What the codeseek_* tools share: the question goes to the code index (the codeseek actor) for this workspace.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CodeQuery } from '../codeseek/client.js';
import { fail, ok, readTags } from './define.js';
import type { CapabilityTags, ToolContext, ToolOutcome } from './types.js';

/** The agents that explore and edit code get every code tool; the Director (whose surface rides on every call it
 *  makes, and a local 8k window feels each tool) keeps search, callers and skeleton for its quick checks. */
export const DEEP_CODE_AUDIENCE: readonly string[] = ['coding', 'repo', 'devops'];

/** Read-only and parallel: they answer from the index and never touch the workspace. */
export function codeTags(brief: CapabilityTags['brief'], audience?: readonly string[]): CapabilityTags {
  return readTags({ brief, display: 'query', ...(audience !== undefined ? { audience } : {}) });
}

/** A path as the index names it (workspace-relative, forward slashes); null when it is outside the workspace. */
export function indexPath(workspace: string, p: string): string | null {
  const rel = relative(workspace, resolve(workspace, p));
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

export async function askCode(ctx: ToolContext, q: CodeQuery): Promise<ToolOutcome> {
  if (!ctx.code) return fail('code_search_unavailable', 'Code search is not available in this run: use grep and read_file.');
  try {
    const a = await ctx.code.ask(q);
    return ok(a.text);
  } catch (err) {
    return fail('code_search_unavailable', `Code search failed (${err instanceof Error ? err.message : String(err)}): use grep and read_file.`);
  }
}
