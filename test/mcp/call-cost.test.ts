// What a call costs in the mcp worker that the bare SDK client does not pay (issue 29): the per-call cancel switch
// is a CallCancel, not an AbortController, with AbortSignal's semantics for what the SDK reads of it; the SDK's zod
// schemas are built with zod's JIT even in a thread whose own zod is jitless (sdk-zod.ts).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CallCancel } from '../../src/actors/mcp/cancel.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('a call in the mcp worker', () => {
  it("CallCancel: a listener runs once at the abort, a removed or late one never; throwIfAborted throws the reason", () => {
    const c = new CallCancel();
    const seen: string[] = [];
    const removed = (): void => void seen.push('removed');
    c.addEventListener('abort', () => seen.push('a'));
    c.addEventListener('abort', removed);
    c.removeEventListener('abort', removed);
    expect(() => c.throwIfAborted()).not.toThrow();
    c.abort('why');
    c.abort('again');
    c.addEventListener('abort', () => seen.push('late'));
    expect(seen).toEqual(['a']);
    expect(c.aborted).toBe(true);
    expect(c.reason).toBe('why');
    expect(() => c.throwIfAborted()).toThrow('why');
    const d = new CallCancel();
    d.abort();
    expect(d.reason).toMatchObject({ name: 'AbortError' });
  });

  it("the SDK's schemas are built with zod's JIT after our jitless zod loaded; ours stay jitless", () => {
    // a fresh process as the mcp worker is: our (vendored, jitless) zod first, then the hub and with it the SDK
    const script = `
      const zod = await import(${JSON.stringify(pathToFileURL(resolve(ROOT, 'dist/node_modules/zod/index.js')).href)});
      let compiled = 0;
      globalThis.Function = new Proxy(Function, { construct(t, args) { if (String(args.at(-1)).includes('return function')) compiled++; return Reflect.construct(t, args); } });
      await import(${JSON.stringify(pathToFileURL(resolve(ROOT, 'dist/src/actors/mcp/hub.js')).href)});
      const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
      CallToolResultSchema.parse({ content: [{ type: 'text', text: 'x' }] });
      const sdk = compiled;
      zod.z.object({ a: zod.z.string() }).parse({ a: 'x' });
      console.log(JSON.stringify({ sdk, ours: compiled - sdk, jitless: zod.config().jitless }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as { sdk: number; ours: number; jitless: boolean };
    expect(out.sdk).toBeGreaterThan(0);
    expect(out).toMatchObject({ ours: 0, jitless: true });
  });
});
