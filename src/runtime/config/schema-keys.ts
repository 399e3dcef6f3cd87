// The key paths the raw schema accepts, derived from its plain-data twin (raw-spec.ts: no zod on the path to a
// pre-sent first request); keys.test.ts pins them to the zod schema itself.
import { RAW_SPEC, type Spec } from './raw-spec.js';

/** A node of the schema's key tree: known children, a `*` for user-chosen names, or a leaf. */
export interface KeyNode {
  children: Map<string, KeyNode>;
  /** A record (`providers.<name>`, `baselines.<agent>`): any name, each shaped like this node. */
  any: KeyNode | undefined;
  /** A value is accepted here (string, number, array…), not only a table. */
  leaf: boolean;
}

const node = (): KeyNode => ({ children: new Map(), any: undefined, leaf: false });

function build(s: Spec, into: KeyNode): KeyNode {
  switch (s.k) {
    case 'obj':
      for (const [k, v] of Object.entries(s.shape)) into.children.set(k, build(v, into.children.get(k) ?? node()));
      return into;
    case 'rec':
      into.any = build(s.of, into.any ?? node());
      return into;
    case 'union':
      for (const o of s.of) {
        if (o.k === 'obj') build(o, into);
        else into.leaf = true;
      }
      return into;
    default:
      into.leaf = true;
      return into;
  }
}

/** The key tree of the raw config schema. */
export const SCHEMA_KEYS: KeyNode = build(RAW_SPEC, node());

/** Every leaf key path (`*` = a user-chosen table name), e.g. `global.llm.providers.*.model`. */
export function schemaKeyPaths(n: KeyNode = SCHEMA_KEYS, prefix = '', out: string[] = []): string[] {
  if (n.leaf && prefix !== '') out.push(prefix);
  const join = (k: string): string => (prefix === '' ? k : `${prefix}.${k}`);
  for (const [k, child] of n.children) schemaKeyPaths(child, join(k), out);
  if (n.any !== undefined) schemaKeyPaths(n.any, join('*'), out);
  return out;
}
