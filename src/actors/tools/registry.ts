// The built-in tool registry and its two-way validation: every declaration (.md) executable, every
// executor declared, and the tag contradictions that would make derived behaviour wrong.
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';
import { listDescriptionNames } from './describe.js';
import { renderParameters } from './define.js';
import readFile from './read_file.js';
import listDir from './list_dir.js';
import glob from './glob.js';
import grep from './grep.js';
import createFile from './create_file.js';
import editFile from './edit_file.js';
import deleteFile from './delete_file.js';
import renameFile from './rename_file.js';
import runBash from './run_bash.js';
import agentExit from './agent_exit.js';
import askUser from './ask_user_for_help.js';
import listNotes from './list_notes.js';
import readNote from './read_note.js';
import readArtifact from './read_artifact.js';
import loadTool from './load_tool.js';
import delegateRepo from './delegate_repo.js';
import delegateCoding from './delegate_coding.js';
import delegateChat from './delegate_chat.js';
import delegateDevops from './delegate_devops.js';
import delegateMeta from './delegate_meta.js';
import delegateBrowser from './delegate_browser.js';
import browserOpen from './browser_open.js';
import browserSnapshot from './browser_snapshot.js';
import browserClick from './browser_click.js';
import browserType from './browser_type.js';
import browserPress from './browser_press.js';
import browserBack from './browser_back.js';
import browserScreenshot from './browser_screenshot.js';
import codeseekSearch from './codeseek_search.js';
import codeseekCallers from './codeseek_callers.js';
import codeseekCallees from './codeseek_callees.js';
import codeseekCallgraph from './codeseek_callgraph.js';
import codeseekSkeleton from './codeseek_skeleton.js';
import codeseekSnippet from './codeseek_snippet.js';
import readBlueprint from './read_blueprint.js';
import undoDelegation from './undo_delegation.js';

/** Every built-in executor. Adding a tool = its file + its .md + one line here; the validation checks the rest. */
export const BUILTIN_TOOLS: readonly ToolDeclaration[] = [
  readFile, listDir, glob, grep, codeseekSearch, codeseekCallers, codeseekCallees, codeseekCallgraph, codeseekSkeleton, codeseekSnippet, readBlueprint, createFile, editFile, deleteFile, renameFile, runBash,
  agentExit, askUser, listNotes, readNote, readArtifact, loadTool, undoDelegation,
  delegateRepo, delegateCoding, delegateChat, delegateDevops, delegateBrowser, delegateMeta,
  browserOpen, browserSnapshot, browserClick, browserType, browserPress, browserBack, browserScreenshot,
] as ToolDeclaration[];

export interface RegistryProblem {
  rule: string;
  tool: string;
  message: string;
}

const NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;

function schemaKeys(decl: ToolDeclaration): string[] | null {
  return decl.schema instanceof z.ZodObject ? Object.keys(decl.schema.shape as Record<string, unknown>) : null;
}

function checkOne(d: ToolDeclaration, add: (rule: string, message: string) => void): void {
  const t = d.tags;
  if (!NAME_RE.test(d.name)) add('name-format', `"${d.name}" must be snake_case, ≤ 64 chars`);
  if (typeof d.execute !== 'function') add('not-executable', 'declaration has no execute function');
  if (d.description.trim() === '') add('missing-description', `no ${d.name}.md description`);
  const keys = schemaKeys(d);
  if (keys === null) add('schema-not-object', 'parameters must be a z.object');
  // the arguments the workspace guard checks
  const guarded = [['pathParams', t.pathParams], ['commandParams', t.commandParams ?? []], ['urlParams', t.urlParams ?? []]] as const;
  for (const [tag, names] of guarded) {
    for (const p of names) if (keys && !keys.includes(p)) add('unknown-param', `${tag} names "${p}", not a schema key`);
  }
  if (t.dangerFlag !== undefined && keys && !keys.includes(t.dangerFlag)) add('unknown-param', `dangerFlag names "${t.dangerFlag}", not a schema key`);
  if (t.effect === 'read' && t.mutates) add('read-effect-mutates', 'effect "read" cannot mutate');
  if ((t.effect === 'fs_write' || t.effect === 'shell') && !t.mutates) add('writer-not-mutating', `effect "${t.effect}" must set mutates`);
  // the one exception: a write delegation in its own worktree (issue 26) writes nothing another call sees until it merges
  if (t.mutates && !t.serial && !(t.isolatedWriter === true && t.effect === 'delegate')) add('mutating-not-serial', 'a mutating tool must be serial (it would never run beside others anyway)');
  if (t.isolatedWriter === true && (t.effect !== 'delegate' || !t.mutates)) add('isolated-not-write-delegation', 'only a mutating delegation gets its own worktree (isolatedWriter)');
  if (t.needsAuth && guarded.every(([, names]) => names.length === 0) && t.dangerFlag === undefined) {
    add('auth-without-target', 'needsAuth but nothing for the workspace guard to check');
  }
  if ((t.effect === 'fs_write' || t.effect === 'shell') && !t.needsAuth) add('unguarded-writer', `effect "${t.effect}" must go through the guard`);
  if (t.cold && t.mutates) add('cold-mutating', 'cold tools run unloaded in parallel batches (teach receipt only): they may not mutate');
  if (t.effect === 'delegate' && (t.audience ?? []).length === 0) add('delegate-without-audience', 'delegation tools must name their audience');
  if (t.effect === 'delegate' && t.target === undefined) add('delegate-without-target', 'built-in delegation tools must name their target agent (-d removes them by it)');
  try {
    renderParameters(d);
  } catch (e) {
    add('schema-unrenderable', `z.toJSONSchema failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    if (typeof t.brief({}) !== 'string') add('brief-not-string', 'brief must return a string');
  } catch (e) {
    add('brief-throws', `brief({}) threw: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Validates declarations against the description files present (`declared`). Empty = healthy. */
export function validateRegistry(decls: readonly ToolDeclaration[], declared: readonly string[]): RegistryProblem[] {
  const problems: RegistryProblem[] = [];
  const seen = new Set<string>();
  for (const d of decls) {
    const add = (rule: string, message: string): void => void problems.push({ rule, tool: d.name, message });
    if (seen.has(d.name)) add('duplicate-name', `"${d.name}" is declared twice`);
    seen.add(d.name);
    checkOne(d, add);
    if (!declared.includes(d.name)) add('executor-without-declaration', `no ${d.name}.md for this executor`);
  }
  for (const name of declared) {
    if (!seen.has(name)) problems.push({ rule: 'declaration-without-executor', tool: name, message: `${name}.md has no executor in the registry` });
  }
  return problems;
}

/** Startup check of the built-in registry; throws listing every problem. */
export function assertRegistry(decls: readonly ToolDeclaration[] = BUILTIN_TOOLS, declared: readonly string[] = listDescriptionNames()): void {
  const problems = validateRegistry(decls, declared);
  if (problems.length > 0) throw new Error(`tool registry invalid:\n${problems.map((p) => `  ${p.rule}: ${p.tool}: ${p.message}`).join('\n')}`);
}
