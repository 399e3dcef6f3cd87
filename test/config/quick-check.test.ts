// The pre-sent first request's config check (issue 29): raw-spec.ts, the zod schema's plain-data twin, accepts only
// what the zod schema accepts and returns what its parse returns (the same keys in the same order), and
// loadConfigQuick gives loadConfig's config and loadConfig's error. A spec looser than the schema fails here.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_TEMPLATE, loadConfig, setKeyInSection } from '../../src/runtime/config/index.js';
import { loadConfigQuick } from '../../src/runtime/config/quick-load.js';
import { quickRawCheck } from '../../src/runtime/config/raw-spec.js';
import { rawConfigSchema } from '../../src/runtime/config/schema.js';
import { schemaKeyPaths } from '../../src/runtime/config/schema-keys.js';
import { BASE } from './helpers.js';

/** Same values AND the same key order at every level (the warnings walk the parsed document in its order). */
function sameData(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Every table path of a document, with the path of each value in it. */
function paths(doc: unknown, at: string[] = [], out: string[][] = []): string[][] {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return out;
  for (const [k, v] of Object.entries(doc)) {
    out.push([...at, k]);
    paths(v, [...at, k], out);
  }
  return out;
}

const FULL = `${BASE}
[global.llm.providers.p]
model = "m"
api_base_url = "http://127.0.0.1:2/v1"
api_key = "k"
fallback_providers = ["q", { provider = "q", weight = 2 }]
[global.llm.providers.q]
model = "m"
api_base_url = "http://127.0.0.1:3/v1"
api_key_env = "Q_KEY"
[agents.llm]
director = { use_provider = "p" }
coding = { use_provider = "p" }
[llm]
timeout = "60s"
max_retries = 2
[llm.prices.m]
input = 1.5
output = 2
[routing]
mode = "fixed"
baselines = { director = "high" }
[blueprint]
export_path = "docs/BLUEPRINT.md"
[undo]
keep_days = 0
[[mcp.servers]]
name = "x"
command = "npx"
[tui.keybindings]
cancel = ["C-x", "C-c"]
[extra_section]
odd = 1979-05-27
`;

const VALUES: unknown[] = ['', 'x', 'docs/a.md', '/abs.md', 'fixed', 'high', 'openai', 0, -1, 1, 2.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, true, false, [], ['a'], [1], [{ provider: 'q' }], [{ provider: 'q', x: 1 }], {}, { a: 1 }, { use_provider: 'p' }, { use_provider: 1 }, { input: 1, output: 1 }, { input: -1, output: 1 }, new Date(0)];

function docs(): unknown[] {
  const out: unknown[] = [];
  for (const text of [CONFIG_TEMPLATE, BASE, FULL]) {
    const base = parse(text);
    out.push(base);
    // every existing path and every schema key path (records at a fixed name) takes every kind of value
    const keyPaths = schemaKeyPaths().map((p) => p.split('.').map((s) => (s === '*' ? 'p' : s)));
    for (const path of [...paths(base), ...keyPaths]) {
      for (const v of VALUES) {
        const doc = structuredClone(base) as Record<string, unknown>;
        let t = doc;
        for (const k of path.slice(0, -1)) {
          if (typeof t[k] !== 'object' || t[k] === null || Array.isArray(t[k])) t[k] = {};
          t = t[k] as Record<string, unknown>;
        }
        t[path.at(-1) as string] = v;
        out.push(doc);
      }
    }
  }
  return out;
}

describe('the quick config check (raw-spec.ts) against the zod schema', () => {
  it('accepts only documents the zod schema accepts, with the data its parse returns; the usual configs pass it', () => {
    let accepted = 0;
    let rejected = 0;
    for (const doc of docs()) {
      const quick = quickRawCheck(doc);
      if (quick === null) {
        rejected++;
        continue;
      }
      accepted++;
      const res = rawConfigSchema().safeParse(doc);
      expect(res.success, JSON.stringify(doc)).toBe(true);
      expect(sameData(quick, res.data), JSON.stringify(doc)).toBe(true);
    }
    expect(accepted).toBeGreaterThan(100);
    expect(rejected).toBeGreaterThan(100);
    for (const text of [CONFIG_TEMPLATE, BASE, FULL]) expect(quickRawCheck(parse(text))).not.toBeNull();
  });

  it('knows the schema keys in the schema order (the "did you mean" of an unknown key takes the first)', () => {
    const walk = (s: z.core.$ZodType, at: string, out: string[]): string[] => {
      const def = s._zod.def;
      if (def.type === 'optional') return walk((def as z.core.$ZodOptionalDef).innerType, at, out);
      if (def.type === 'object') for (const [k, v] of Object.entries((def as z.core.$ZodObjectDef).shape)) walk(v, at === '' ? k : `${at}.${k}`, out);
      else if (def.type === 'record') walk((def as z.core.$ZodRecordDef).valueType, `${at}.*`, out);
      else if (def.type === 'union') {
        const opts = (def as z.core.$ZodUnionDef).options;
        if (opts.some((o) => o._zod.def.type !== 'object')) out.push(at);
        for (const o of opts) if (o._zod.def.type === 'object') walk(o, at, out);
      } else out.push(at);
      return out;
    };
    const fromZod = [...new Set(walk(rawConfigSchema(), '', []))];
    expect(schemaKeyPaths().filter((p) => fromZod.includes(p))).toEqual(fromZod.filter((p) => schemaKeyPaths().includes(p)));
    expect(new Set(schemaKeyPaths())).toEqual(new Set(fromZod));
  });
});

describe('loadConfigQuick', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'yagent-quick-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const both = async (text: string, name: string) => {
    const configPath = join(dir, `${name}.toml`);
    await writeFile(configPath, text);
    const settle = <T>(p: Promise<T>) => p.then((v) => ({ v }), (e: unknown) => ({ e: e instanceof Error ? `${e.message}\n${JSON.stringify(e)}` : String(e) }));
    return { quick: await settle(loadConfigQuick({ configPath, env: { Q_KEY: 'qk' } })), full: await settle(loadConfig({ configPath, env: { Q_KEY: 'qk' } })) };
  };

  it('a config the quick check passes builds no zod schema and equals loadConfig\'s, warnings included', async () => {
    const text = setKeyInSection(`${FULL}\n[agent]\ndirectr_max_steps = 3\n`, 'routing', 'mode', 'fixed');
    const { quick, full } = await both(text, 'good');
    expect('e' in quick ? quick.e : quick.v.quick).toBe(true);
    expect('v' in quick && quick.v.config).toEqual('v' in full && full.v.config);
    expect('v' in quick && quick.v.config.warnings.length).toBeGreaterThan(0);
  });

  it('a config it is unsure of goes through the zod schema: the same config, or the same error', async () => {
    const cases: Record<string, string> = {
      stripped: `${BASE}\n[global.llm.providers.q]\nmodel = "m"\napi_base_url = "http://127.0.0.1:1/v1"\napi_key = "k"\nfallback_providers = [{ provider = "p", extra = 1 }]\n`,
      type: `${BASE}\n[agent]\ndirector_max_steps = "ten"\n`,
      int: `${BASE}\n[agent]\ndirector_max_steps = 1.5\n`,
      exportPath: `${BASE}\n[blueprint]\nexport_path = "/etc/x.md"\n`,
      undo: `${BASE}\n[undo]\nmax_mb = -1\n`,
      syntax: `${BASE}\n[agent\n`,
      duration: `${BASE}\n[llm]\ntimeout = "soon"\n`,
      provider: `${BASE}\n[global.llm]\nuse_provider = "nope"\n`,
    };
    for (const [name, text] of Object.entries(cases)) {
      const { quick, full } = await both(text, name);
      if ('v' in full) {
        expect('v' in quick && quick.v.config, name).toEqual(full.v.config);
        expect('v' in quick && quick.v.quick, name).toBe(false);
      } else {
        expect(quick, name).toEqual(full);
      }
    }
  });
});
