// "A config key that exists is not a key that works": the key table mirrors the schema and the template.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CONFIG_TEMPLATE } from '../../src/runtime/config/index.js';
import { RESERVED_KEYS } from '../../src/runtime/config/reserved-keys.js';
import { rawConfigSchema } from '../../src/runtime/config/schema.js';
import { schemaKeyPaths } from '../../src/runtime/config/schema-keys.js';
import { KEY_TABLE } from './key-table.js';

/** Every leaf key path the schema accepts (`*` = a user-chosen table name). */
function schemaKeys(s: z.core.$ZodType, prefix: string, out: string[]): string[] {
  const def = s._zod.def;
  switch (def.type) {
    case 'optional':
      return schemaKeys((def as z.core.$ZodOptionalDef).innerType, prefix, out);
    case 'object':
      for (const [k, v] of Object.entries((def as z.core.$ZodObjectDef).shape)) schemaKeys(v, prefix === '' ? k : `${prefix}.${k}`, out);
      return out;
    case 'record':
      return schemaKeys((def as z.core.$ZodRecordDef).valueType, `${prefix}.*`, out);
    case 'union': {
      const options = (def as z.core.$ZodUnionDef).options;
      const objects = options.filter((o) => o._zod.def.type === 'object');
      if (objects.length < options.length) out.push(prefix);
      for (const o of objects) schemaKeys(o, prefix, out);
      return out;
    }
    default:
      out.push(prefix);
      return out;
  }
}

/** The table row a concrete dotted path belongs to (a provider or agent name matches `*`). */
function tableKey(path: string): string | undefined {
  if (Object.hasOwn(KEY_TABLE, path)) return path;
  const parts = path.split('.');
  for (let i = 0; i < parts.length; i++) {
    const cand = [...parts.slice(0, i), '*', ...parts.slice(i + 1)].join('.');
    if (Object.hasOwn(KEY_TABLE, cand)) return cand;
  }
  return undefined;
}

interface TemplateKey {
  path: string;
  line: string;
  /** The comment line just above the section header says the whole section is reserved. */
  sectionReserved: boolean;
}

/** Keys written in the template, commented-out examples included (a commented key is a promise too). */
function templateKeys(text: string): TemplateKey[] {
  const out: TemplateKey[] = [];
  const lines = text.split('\n');
  let section = '';
  let sectionReserved = false;
  lines.forEach((line, i) => {
    // [[x]] is an array of tables: its keys belong to the array key itself (e.g. mcp.servers)
    const array = /^#?\s*\[\[([\w.]+)\]\]/.exec(line);
    const header = array ?? /^#?\s*\[([\w.]+)\]/.exec(line);
    if (header?.[1] !== undefined) {
      section = array ? `${header[1]}[]` : header[1];
      sectionReserved = (lines[i - 1] ?? '').startsWith('#') && (lines[i - 1] ?? '').includes('reserved');
      return;
    }
    const key = /^#?\s*([a-z_][\w.]*)\s*=/.exec(line);
    if (key?.[1] !== undefined) out.push({ path: section.endsWith('[]') ? section.slice(0, -2) : `${section}.${key[1]}`, line, sectionReserved });
  });
  return out;
}

describe('config key table (key → consumer → test, or reserved for a named feature)', () => {
  it('the loader warns about exactly the reserved rows of the table, and knows exactly the schema keys', () => {
    const reserved = Object.entries(KEY_TABLE).filter(([, row]) => 'reserved' in row).map(([k]) => k);
    expect(Object.keys(RESERVED_KEYS).sort()).toEqual(reserved.sort());
    expect(schemaKeyPaths().sort()).toEqual([...new Set(schemaKeys(rawConfigSchema(), '', []))].sort());
  });

  it('lists exactly the keys the schema accepts', () => {
    expect(schemaKeys(rawConfigSchema(), '', []).sort()).toEqual(Object.keys(KEY_TABLE).sort());
  });

  it('every key the template writes or shows is in the table', () => {
    const keys = templateKeys(CONFIG_TEMPLATE);
    expect(keys.length).toBeGreaterThan(40);
    expect(keys.filter((k) => tableKey(k.path) === undefined).map((k) => k.path)).toEqual([]);
  });

  it('the template marks every reserved key as reserved and no working key as reserved', () => {
    const wrong = templateKeys(CONFIG_TEMPLATE).flatMap((k) => {
      const row = KEY_TABLE[tableKey(k.path) ?? ''];
      const marked = k.sectionReserved || k.line.includes('reserved');
      return row !== undefined && 'reserved' in row !== marked ? [`${k.path} (${marked ? 'marked' : 'not marked'})`] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('every named test exists in the file of its area', () => {
    const FILES: Record<string, string> = {
      rules: 'test/config/rules.test.ts',
      file: 'test/config/file.test.ts',
      consumers: 'test/config/consumers.test.ts',
      routing: 'test/llm/routing.test.ts',
      director: 'test/agents/director.test.ts',
      prompts: 'test/agents/prompts.test.ts',
      store: 'test/store/blackboard-notes.test.ts',
      security: 'test/config/security-consumers.test.ts',
      logs: 'test/store/logs.test.ts',
      mcp: 'test/mcp/agent-mcp.test.ts',
      skills: 'test/mcp/skills.test.ts',
      tui: 'test/tui/e2e.test.ts',
      browser: 'test/browser/discovery.test.ts',
      blueprint: 'test/blueprint/blueprint.test.ts',
      'blueprint export': 'test/blueprint/export.test.ts',
    };
    const missing: string[] = [];
    for (const [key, row] of Object.entries(KEY_TABLE)) {
      if ('reserved' in row) continue;
      for (const ref of row.test.split(';')) {
        const colon = ref.indexOf(':');
        const file = FILES[ref.slice(0, colon).trim()];
        const needle = ref.slice(colon + 1).split('…')[0]?.trim() ?? '';
        if (file === undefined || needle === '' || !readFileSync(file, 'utf8').includes(needle)) missing.push(`${key} → ${ref.trim()}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
