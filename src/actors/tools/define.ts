// defineTool: binds a tool's schema, tags and executor to its sibling `.md` description.
import { z } from 'zod';
import type { CapabilityTags, ToolContext, ToolDeclaration, ToolOutcome } from './types.js';
import { loadDescription } from './describe.js';

export interface ToolSpec<S extends z.ZodType> {
  name: string;
  schema: S;
  tags: CapabilityTags;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome>;
  /** Tests pass an inline description; production reads `<name>.md`. */
  description?: string;
}

export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): ToolDeclaration<S> {
  let description = spec.description;
  return {
    name: spec.name,
    // read at its first use: a worker imports every tool, and an agent's first request needs only its palette's texts
    // (~50 file reads off the agent worker's boot)
    get description(): string {
      return (description ??= loadDescription(spec.name));
    },
    schema: spec.schema,
    tags: spec.tags,
    execute: spec.execute,
  };
}

/** Rendered once per schema: z.toJSONSchema costs milliseconds and a tool's schema never changes. */
const rendered = new WeakMap<z.ZodType, Readonly<Record<string, unknown>>>();

/** Provider JSON Schema for a declaration (input side: defaulted fields are optional to the model).
 *  Shared and frozen: callers serialise it, never edit it. */
export function renderParameters(decl: ToolDeclaration): Record<string, unknown> {
  if (decl.parameters !== undefined) return decl.parameters as Record<string, unknown>;
  let json = rendered.get(decl.schema);
  if (json === undefined) {
    const fresh = z.toJSONSchema(decl.schema, { io: 'input' }) as Record<string, unknown>;
    delete fresh.$schema;
    json = deepFreeze(fresh);
    rendered.set(decl.schema, json);
  }
  return json as Record<string, unknown>;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

export const ok = (content: string, display?: string): ToolOutcome =>
  display === undefined ? { kind: 'ok', content } : { kind: 'ok', content, display };

export const fail = (kind: string, message: string): ToolOutcome => ({ kind: 'error', error: { kind, message } });

/** A string argument for briefs, cut to one short line. */
export function briefArg(args: Record<string, unknown>, key: string, max = 80): string {
  const v = args[key];
  const s = typeof v === 'string' ? v.replace(/\s+/g, ' ') : '';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Common tags for read-only, parallel-safe tools. */
export function readTags(over: Partial<CapabilityTags> & Pick<CapabilityTags, 'brief'>): CapabilityTags {
  return {
    effect: 'read',
    mutates: false,
    serial: false,
    needsAuth: false,
    pathParams: [],
    truncation: 'head',
    display: 'path',
    ...over,
  };
}

/** Common tags for file-writing tools: serial, mutating, guarded. */
export function writeTags(over: Partial<CapabilityTags> & Pick<CapabilityTags, 'brief' | 'pathParams'>): CapabilityTags {
  return {
    effect: 'fs_write',
    mutates: true,
    serial: true,
    needsAuth: true,
    truncation: 'head_tail',
    display: 'path',
    ...over,
  };
}
