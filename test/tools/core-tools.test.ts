// Pins the core file tools' contracts: ranges and limits of read_file, exact edits with a diff, the
// write tools' refusals, glob/list_dir, and grep with ripgrep and with its built-in fallback.
import { mkdirSync, readFileSync, truncateSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool } from '../../src/actors/tools/adapter.js';
import { RG_MISSING_NOTE } from '../../src/actors/tools/grep.js';
import { z } from 'zod';
import { defineTool, ok, readTags } from '../../src/actors/tools/define.js';
import type { ToolDeclaration } from '../../src/actors/tools/types.js';
import { call, makeDeps, tempDir } from './helpers.js';

let ws: ReturnType<typeof tempDir>;
const signal = new AbortController().signal;
const run = async (name: string, args: unknown, agent: 'coding' | 'director' = 'coding') => callTool(call(name, args), makeDeps(ws.path, { agent }), signal);
const err = (content: string): string => (JSON.parse(content) as { error: { kind: string } }).error.kind;
beforeEach(() => {
  ws = tempDir();
});
afterEach(() => ws.cleanup());

const hasRg = (() => {
  try {
    execFileSync('rg', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

describe('read_file', () => {
  it('numbers lines, honours ranges and stops at 1000 lines per call with a continuation hint', async () => {
    writeFileSync(join(ws.path, 'big.txt'), Array.from({ length: 2500 }, (_, i) => `L${i + 1}`).join('\n'));
    const first = await run('read_file', { path: 'big.txt' });
    expect(first.content.split('\n')[0]).toBe('1\tL1');
    expect(first.content).toMatch(/1000\tL1000\n\[lines 1-1000 of 2500; continue with start_line=1001\]/);
    expect(first.content).not.toMatch(/L1001/);
    const range = await run('read_file', { path: 'big.txt', start_line: 10, end_line: 12 });
    expect(range.content).toBe('10\tL10\n11\tL11\n12\tL12\n[lines 10-12 of 2500; continue with start_line=13]');
    expect(err((await run('read_file', { path: 'big.txt', start_line: 9999 })).content)).toBe('out_of_range');
  });

  it('refuses over 10 MB, warns over 2 MB', async () => {
    writeFileSync(join(ws.path, 'huge.txt'), '');
    truncateSync(join(ws.path, 'huge.txt'), 10 * 1024 * 1024 + 1);
    expect(err((await run('read_file', { path: 'huge.txt' })).content)).toBe('too_large');
    writeFileSync(join(ws.path, 'mid.txt'), 'abcdefghij\n'.repeat(220_000));
    expect((await run('read_file', { path: 'mid.txt', end_line: 2 })).content).toMatch(/warning: large file/);
    writeFileSync(join(ws.path, 'small.txt'), 'x\n');
    expect((await run('read_file', { path: 'small.txt' })).content).toBe('1\tx');
  });

  it('binary, missing and directory paths are results the model can act on', async () => {
    writeFileSync(join(ws.path, 'bin'), Buffer.from([1, 0, 2]));
    mkdirSync(join(ws.path, 'd'));
    expect(err((await run('read_file', { path: 'bin' })).content)).toBe('binary_file');
    expect(err((await run('read_file', { path: 'nope' })).content)).toBe('not_found');
    expect(err((await run('read_file', { path: 'd' })).content)).toBe('is_directory');
  });
});

describe('edit_file and the write tools', () => {
  it('exact replace returns a unified diff; `$&` in the replacement stays literal', async () => {
    writeFileSync(join(ws.path, 'a.ts'), 'const a = 1;\nconst b = 2;\n');
    const res = await run('edit_file', { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = "$&";' });
    expect(res.content).toMatch(/^--- a\.ts\n\+\+\+ a\.ts\n@@ -1,2 \+1,2 @@\n const a = 1;\n-const b = 2;\n\+const b = "\$&";/);
    expect(readFileSync(join(ws.path, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = "$&";\n');
  });

  it('no match and ambiguous matches are refused; replace_all replaces every one', async () => {
    writeFileSync(join(ws.path, 'b.txt'), 'x x x');
    expect(err((await run('edit_file', { path: 'b.txt', old_string: 'y', new_string: 'z' })).content)).toBe('no_match');
    expect((await run('edit_file', { path: 'b.txt', old_string: 'x', new_string: 'z' })).content).toMatch(/occurs 3 times/);
    await run('edit_file', { path: 'b.txt', old_string: 'x', new_string: 'z', replace_all: true });
    expect(readFileSync(join(ws.path, 'b.txt'), 'utf8')).toBe('z z z');
  });

  it('edit refuses to grow a file past 10 MB', async () => {
    writeFileSync(join(ws.path, 'g.txt'), 'AB');
    const res = await run('edit_file', { path: 'g.txt', old_string: 'A', new_string: 'x'.repeat(10 * 1024 * 1024) });
    expect(err(res.content)).toBe('too_large');
    expect(readFileSync(join(ws.path, 'g.txt'), 'utf8')).toBe('AB');
  });

  it('create refuses to overwrite unless asked; rename refuses an existing target; delete removes files only', async () => {
    expect((await run('create_file', { path: 'n/new.txt', content: 'one' })).status).toBe('ok');
    expect(err((await run('create_file', { path: 'n/new.txt', content: 'two' })).content)).toBe('exists');
    await run('create_file', { path: 'n/new.txt', content: 'two', overwrite: true });
    expect(readFileSync(join(ws.path, 'n/new.txt'), 'utf8')).toBe('two');
    await run('create_file', { path: 'other.txt', content: '' });
    expect(err((await run('rename_file', { from: 'n/new.txt', to: 'other.txt' })).content)).toBe('exists');
    expect((await run('rename_file', { from: 'n/new.txt', to: 'm/moved.txt' })).status).toBe('ok');
    expect(existsSync(join(ws.path, 'm/moved.txt'))).toBe(true);
    expect(err((await run('delete_file', { path: 'm' })).content)).toBe('is_directory');
    expect((await run('delete_file', { path: 'm/moved.txt' })).status).toBe('ok');
    expect(existsSync(join(ws.path, 'm/moved.txt'))).toBe(false);
  });
});

describe('listing and search', () => {
  beforeEach(() => {
    mkdirSync(join(ws.path, 'src/deep'), { recursive: true });
    writeFileSync(join(ws.path, 'src/a.ts'), 'export const needle = 1;\n');
    writeFileSync(join(ws.path, 'src/deep/b.ts'), 'no\nNEEDLE here\n');
    writeFileSync(join(ws.path, 'notes.md'), 'needle in md\n');
  });

  it('list_dir marks directories; glob finds by pattern, sorted', async () => {
    expect((await run('list_dir', {})).content).toBe('notes.md\nsrc/');
    expect((await run('glob', { pattern: '**/*.ts' })).content).toBe('src/a.ts\nsrc/deep/b.ts');
  });

  it.skipIf(!hasRg)('grep uses ripgrep when installed', async () => {
    const res = await run('grep', { pattern: 'needle', ignore_case: true, glob: '*.ts' });
    expect(res.content).not.toContain(RG_MISSING_NOTE);
    expect(res.content.split('\n').sort()).toEqual(['src/a.ts:1:export const needle = 1;', 'src/deep/b.ts:2:NEEDLE here']);
  });

  it('grep without ripgrep says so and falls back to the built-in search with the same lines', async () => {
    const saved = process.env.YAGENT_RG;
    process.env.YAGENT_RG = join(ws.path, 'no-such-rg');
    try {
      const res = await run('grep', { pattern: 'needle', ignore_case: true, glob: '*.ts' });
      const [note, ...lines] = res.content.split('\n');
      expect(note).toBe(RG_MISSING_NOTE);
      expect(lines.sort()).toEqual(['src/a.ts:1:export const needle = 1;', 'src/deep/b.ts:2:NEEDLE here']);
      expect(err((await run('grep', { pattern: '(' })).content)).toBe('invalid_pattern');
      // one turn signal serves many calls: a missing rg must not leave an abort listener behind per call
      const turn = new AbortController().signal;
      for (let i = 0; i < 12; i++) await callTool(call('grep', { pattern: 'needle' }), makeDeps(ws.path), turn);
      expect(getEventListeners(turn, 'abort')).toHaveLength(0);
    } finally {
      if (saved === undefined) delete process.env.YAGENT_RG;
      else process.env.YAGENT_RG = saved;
    }
  });
});

describe('interaction, memory and delegation tools', () => {
  it('agent_exit ends with a handoff whose status cannot be degraded', async () => {
    const res = await run('agent_exit', { conclusion: 'done', status: 'ok', facts: ['f'] });
    expect(res.status).toBe('exit');
    expect(res.outcome).toEqual({ kind: 'exit', handoff: { conclusion: 'done', status: 'ok', facts: ['f'], artifacts: [] } });
    expect(err((await run('agent_exit', { conclusion: 'x', status: 'degraded' })).content)).toBe('invalid_arguments');
  });

  it('ask_user_for_help with nobody to answer tells the model to decide itself', async () => {
    expect((await run('ask_user_for_help', { question: 'which?' })).content).toMatch(/decide yourself/);
  });

  it('load_tool loads a cold tool through the adapter: its schema comes back and it joins the provider definitions', async () => {
    const ext = defineTool({ name: 'mcp__s__find', description: 'Find.', schema: z.object({ q: z.string() }), tags: readTags({ brief: () => '' }), execute: () => Promise.resolve(ok('found')) }) as ToolDeclaration;
    const deps = makeDeps(ws.path, { surfaceOptions: { external: [ext] } });
    expect(deps.surface.defs().map((d) => d.name)).not.toContain('mcp__s__find');
    const res = await callTool(call('load_tool', { name: 'mcp__s__find' }), deps, signal);
    expect(res.content).toMatch(/"q"/);
    expect(deps.surface.defs().map((d) => d.name)).toContain('mcp__s__find');
    expect((await callTool(call('mcp__s__find', { q: 'x' }), deps, signal)).content).toBe('found');
    expect(err((await callTool(call('load_tool', { name: 'read_file' }), deps, signal)).content)).toBe('unknown_tool');
  });

  it('delegate_* calls ctx.delegate with the target and arguments; notes tools reach the store', async () => {
    expect((await run('delegate_repo', { task: 'map the code' }, 'director')).content).toBe('repo did map the code');
    const seen: string[] = [];
    const deps = makeDeps(ws.path, { agent: 'director', env: { delegate: (a, args, c) => (seen.push(`${a}:${args.context_refs.join(',')}:${c?.callId ?? ''}`), Promise.resolve(ok('x'))) } });
    await callTool(call('delegate_coding', { task: 't', context_refs: ['note-1'] }, 'call_dc'), deps, signal);
    expect(seen).toEqual(['coding:note-1:call_dc']);
    expect((await run('read_note', { ref: 'n1' })).content).toBe('note n1');
  });
});
