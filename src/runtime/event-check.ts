// EventSchema on the main thread, per worker event: the flat shapes (a literal `type` and required plain strings, e.g.
// ai_chunk, thinking, delegation_start) are checked by hand, anything else through zod. Same answer either way: an
// object with the schema's keys in the schema's order (the event itself when it already is one: the ingress's events
// are structured clones nobody else holds; else a copy); an extra key, a missing one or a non-string goes to zod (which
// strips, or rejects, as it always did). Jitless zod costs ~2.8 µs an event and its garbage; this ~0.1 µs.
import { EventSchema, type Event } from './protocol/index.js';

type Checked = { success: true; data: Event } | { success: false };

/** zod v4 internals read once to list the flat shapes; a schema this cannot read leaves every event to zod. */
interface ZodNode {
  _zod: { def: { type: string; getter?: () => ZodNode; options?: ZodNode[]; shape?: Record<string, ZodNode>; values?: unknown[]; checks?: unknown[]; catchall?: unknown } };
}

let flat: Map<string, readonly string[]> | undefined;
/** Per flat type: its other keys and an object of its shape (the schema's keys in order) to copy the event into. */
let templates: Map<string, { keys: readonly string[]; shape: Record<string, unknown> }> | undefined;

function template(type: string): { keys: readonly string[]; shape: Record<string, unknown> } | undefined {
  if (!templates) {
    templates = new Map();
    for (const [t, keys] of flatShapes()) templates.set(t, { keys, shape: Object.fromEntries([['type', t], ...keys.map((k) => [k, ''])]) });
  }
  return templates.get(type);
}

/** type → the other keys of its object, for each option of the union made only of a literal type and plain strings. */
export function flatShapes(): Map<string, readonly string[]> {
  if (flat) return flat;
  flat = new Map();
  const lazy = EventSchema as unknown as ZodNode;
  const union = lazy._zod.def.type === 'lazy' ? lazy._zod.def.getter?.() : lazy;
  for (const o of union?._zod.def.options ?? []) {
    const def = o._zod.def;
    if (def.type !== 'object' || !def.shape || def.catchall !== undefined) continue;
    const keys = Object.keys(def.shape);
    const lit = def.shape.type?._zod.def;
    if (keys[0] !== 'type' || lit?.type !== 'literal' || lit.values?.length !== 1 || typeof lit.values[0] !== 'string') continue;
    const rest = keys.slice(1);
    const plain = rest.every((k) => {
      const d = def.shape?.[k]?._zod.def;
      return d?.type === 'string' && (d.checks?.length ?? 0) === 0;
    });
    if (plain) flat.set(lit.values[0], rest);
  }
  return flat;
}

/** EventSchema.safeParse(raw), the flat shapes without zod. */
export function checkEvent(raw: unknown): Checked {
  const data = parseEvent(raw);
  return data === undefined ? { success: false } : { success: true, data };
}

/** checkEvent's answer without its wrapper: the event zod would return, or undefined when zod rejects it (the ingress
 *  calls this per event: no result object per event under a flood). */
export function parseEvent(raw: unknown): Event | undefined {
  if (raw !== null && typeof raw === 'object') {
    const o = raw as Record<string, unknown>;
    const type = o.type;
    const t = typeof type === 'string' ? template(type) : undefined;
    if (t !== undefined && Object.getPrototypeOf(o) === Object.prototype) {
      const keys = t.keys;
      // already zod's answer (the schema's keys in its order, each a string, nothing else): the event itself, no copy.
      // The ingress is fed structured clones, which nobody else holds and which have only own enumerable data keys
      // (the copy was ~60 of the ~200 bytes the main thread allocated per event under a flood)
      let i = -1;
      for (const k in o) {
        if (i < 0 ? k !== 'type' : i >= keys.length || k !== keys[i] || typeof o[k] !== 'string') {
          i = -2;
          break;
        }
        i++;
      }
      if (i === keys.length) {
        // its type as the schema's own string (a clone's is a fresh copy: the dispatcher's and the ledger's keyed
        // lookups would hash it per event, and it would live as long as the envelope)
        o.type = t.shape.type;
        return o as Event;
      }
      // keys in another order (or wrong): a copy of the shape, every key in place at once
      const out: Record<string, unknown> = { ...t.shape };
      let ok = true;
      for (const k of keys) {
        const v = o[k];
        if (typeof v !== 'string') {
          ok = false;
          break;
        }
        out[k] = v;
      }
      let n = 0;
      for (const k in o) if (Object.hasOwn(o, k)) n++;
      // exactly the schema's keys, own and plain (a cloned worker message has no others): zod's output, built here
      if (ok && n === keys.length + 1) return out as Event;
    }
  }
  const r = EventSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}
