// The key paths the raw schema accepts, derived from the zod schema itself (no second list to drift).
import type { z } from 'zod';
import { RawConfigSchema } from './schema.js';

/** A node of the schema's key tree: known children, a `*` for user-chosen names, or a leaf. */
export interface KeyNode {
  children: Map<string, KeyNode>;
  /** A record (`providers.<name>`, `baselines.<agent>`): any name, each shaped like this node. */
  any: KeyNode | undefined;
  /** A value is accepted here (string, number, array…), not only a table. */
  leaf: boolean;
}

const node = (): KeyNode => ({ children: new Map(), any: undefined, leaf: false });

function build(s: z.core.$ZodType, into: KeyNode): KeyNode {
  const def = s._zod.def;
  switch (def.type) {
    case 'optional':
      return build((def as z.core.$ZodOptionalDef).innerType, into);
    case 'object':
      for (const [k, v] of Object.entries((def as z.core.$ZodObjectDef).shape)) into.children.set(k, build(v, into.children.get(k) ?? node()));
      return into;
    case 'record':
      into.any = build((def as z.core.$ZodRecordDef).valueType, into.any ?? node());
      return into;
    case 'union':
      for (const o of (def as z.core.$ZodUnionDef).options) {
        if (o._zod.def.type === 'object') build(o, into);
        else into.leaf = true;
      }
      return into;
    default:
      into.leaf = true;
      return into;
  }
}

/** The key tree of the raw config schema. */
export const SCHEMA_KEYS: KeyNode = build(RawConfigSchema, node());

/** Every leaf key path (`*` = a user-chosen table name), e.g. `global.llm.providers.*.model`. */
export function schemaKeyPaths(n: KeyNode = SCHEMA_KEYS, prefix = '', out: string[] = []): string[] {
  if (n.leaf && prefix !== '') out.push(prefix);
  const join = (k: string): string => (prefix === '' ? k : `${prefix}.${k}`);
  for (const [k, child] of n.children) schemaKeyPaths(child, join(k), out);
  if (n.any !== undefined) schemaKeyPaths(n.any, join('*'), out);
  return out;
}
