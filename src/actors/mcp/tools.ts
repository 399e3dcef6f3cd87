// MCP tools as tool declarations for an agent's surface: always cold, namespaced mcp__<server>__<tool>,
// tags derived from the server's annotations (no readOnlyHint = a write: serial, guarded, asked for).
import { z } from 'zod';
import type { Remote } from '../../runtime/actor.js';
import { briefArg, fail, ok } from '../tools/define.js';
import type { CapabilityTags, ToolDeclaration } from '../tools/types.js';
import type { McpToolInfo } from './hub.js';
import type { CallPoll, McpApi } from './mcp-actor.js';

/** Below the RPC timeout: a long call is long-polled, never one RPC. */
const POLL_MS = 10_000;
const MAX_NAME = 64;
/** A result longer than this goes to an artifact; the model gets its head and the id (read_artifact pages it). */
export const MCP_INLINE_CHARS = 16_000;
const HEAD_CHARS = 2_000;
/** A call's id ends in this thread's random tag and a counter: unique among the calls of every thread the mcp actor
 *  serves, without a `Math.random().toString(36)` per call. */
const THREAD_TAG = Math.random().toString(36).slice(2, 10);
let callSeq = 0;

/** Large results are stored, not pushed through the context window. */
async function inlineOrArtifact(text: string, store: { writeArtifact(content: string): Promise<string> }): Promise<string> {
  if (text.length <= MCP_INLINE_CHARS) return text;
  const id = await store.writeArtifact(text);
  return `${text.slice(0, HEAD_CHARS)}\n… (${text.length} chars in all: the full result is artifact ${id}; page it with read_artifact {"id": "${id}", "offset": ${HEAD_CHARS}})`;
}

/** Provider-safe tool name (letters, digits, _ and -; at most 64 characters). */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, MAX_NAME);
}

function tagsFor(t: McpToolInfo, name: string): CapabilityTags {
  const brief = (a: Record<string, unknown>): string => briefArg({ s: JSON.stringify(a) }, 's');
  if (t.readOnly) {
    return { effect: 'read', mutates: false, serial: false, needsAuth: false, pathParams: [], truncation: 'head', display: 'text', brief, cold: true };
  }
  const approval = t.destructive
    ? { key: `${name}:destructive`, text: `${name} is marked destructive by MCP server "${t.server}"`, projectGrant: t.allowWrite }
    : t.allowWrite
      ? undefined
      : { key: `${name}:write`, text: `${name} may change things (MCP server "${t.server}" does not mark it read-only)`, projectGrant: true };
  return {
    effect: 'fs_write',
    mutates: true,
    serial: true,
    needsAuth: true,
    pathParams: [],
    truncation: 'head',
    display: 'text',
    brief,
    cold: true,
    ...(approval !== undefined ? { approval } : {}),
  };
}

/** The poll's answer, or null as soon as `signal` aborts (one promise and one listener per poll, no race). */
function pollOrAbort(next: Promise<CallPoll>, signal: AbortSignal): Promise<CallPoll | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise<CallPoll | null>((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    next.then(
      (poll) => {
        signal.removeEventListener('abort', onAbort);
        resolve(poll);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** Awaits a started call, polling below the RPC timeout; an abort cancels it on the server. */
async function finish(mcp: Remote<McpApi>, id: string, first: Promise<CallPoll>, signal: AbortSignal): Promise<{ isError: boolean; text: string } | null> {
  for (let next = first; ; next = mcp.awaitCall(id, POLL_MS)) {
    const poll = await pollOrAbort(next, signal);
    if (poll === null) {
      await mcp.cancelCall(id);
      return null;
    }
    if (poll.done) return poll.result;
  }
}

export function mcpToolDeclarations(catalogue: readonly McpToolInfo[], mcp: Remote<McpApi>): ToolDeclaration[] {
  const seen = new Set<string>();
  const out: ToolDeclaration[] = [];
  for (const t of catalogue) {
    const name = mcpToolName(t.server, t.name);
    if (seen.has(name)) continue;
    seen.add(name);
    const firstLine = (t.description.split('\n')[0] ?? '').trim();
    out.push({
      name,
      description: `${firstLine === '' ? t.name : t.description} (tool "${t.name}" of MCP server "${t.server}")`,
      schema: z.record(z.string(), z.unknown()),
      parameters: t.inputSchema,
      tags: tagsFor(t, name),
      async execute(args, ctx) {
        const id = `${ctx.callId}:${ctx.agent}:${THREAD_TAG}.${++callSeq}`;
        const r = await finish(mcp, id, mcp.startCall(id, t.server, t.name, args as Record<string, unknown>, POLL_MS), ctx.signal);
        if (r === null) return fail('cancelled', 'The call was cancelled.');
        if (r.isError) return fail('mcp_tool_error', r.text);
        return ok(r.text.length <= MCP_INLINE_CHARS ? r.text : await inlineOrArtifact(r.text, ctx.store));
      },
    });
  }
  return out;
}
