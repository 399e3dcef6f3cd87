// Start-up import graphs of compiled JS: the client thread stays free of the agent graph, and the agent actor of what it may never use.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_THREAD } from '../../src/actors/agents/agent-module.js';

/** Static imports of compiled JS (type-only imports are already erased by tsc). */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop() ?? '';
    if (files.has(file)) continue;
    files.add(file);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm)) {
      const spec = m[1] ?? m[2] ?? '';
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:')) packages.add(spec);
    }
  }
  return { files, packages };
}

const ENTRY = resolve('dist/src/actors/agents/run-task.js');

describe('runTask on the client thread', () => {
  it('run-task imports no SDK, tool, engine, loop or the agent actor (only the AGENT_MODULE constant)', () => {
    expect(existsSync(ENTRY), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
    const { files, packages } = importGraph(ENTRY);
    const rel = [...files].map((f) => f.slice(resolve('dist').length + 1));
    expect(rel.filter((f) => /^src\/actors\/(tools|llm)\//.test(f))).toEqual([]);
    expect(rel.filter((f) => /agents\/(agent-actor|loop|run-agent|delegation|tool-wiring)\.js$/.test(f))).toEqual([]);
    expect(rel).toContain('src/actors/agents/agent-module.js');
    expect([...packages].filter((p) => p !== 'zod')).toEqual([]);
  });

  it('the agent actor loads diff on the first edit, not at start (an agent that never edits never pays for it)', () => {
    const entry = resolve('dist/src/actors/agents/agent-actor.js');
    expect(existsSync(entry), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
    const { packages } = importGraph(entry);
    expect(packages.has('zod')).toBe(true);
    expect(packages.has('diff')).toBe(false);
    // the bundle the worker really loads (AGENT_THREAD) keeps them lazy too: diff is initialised, and the SDKs
    // required, only inside the dynamic import that asks for them (rolldown's CommonJS form of import())
    const bundled = readFileSync(resolve('dist', AGENT_THREAD.bundle), 'utf8');
    const lazyOnly = (call: string, lazy: RegExp): void => {
      const all = bundled.split(call).length - 1;
      expect(all, call).toBeGreaterThan(0);
      expect((bundled.match(lazy) ?? []).length, call).toBe(all);
    };
    lazyOnly('init_diff()', /Promise\.resolve\(\)\.then\(\(\) => \(init_diff\(\)/g);
    lazyOnly('require("openai")', /Promise\.resolve\(\)\.then\(\(\) => \/\* @__PURE__ \*\/ __toESM\$?\d*\(require\("openai"\)/g);
    lazyOnly('require("@anthropic-ai/sdk")', /Promise\.resolve\(\)\.then\(\(\) => \/\* @__PURE__ \*\/ __toESM\$?\d*\(require\("@anthropic-ai\/sdk"\)/g);
  });
});
