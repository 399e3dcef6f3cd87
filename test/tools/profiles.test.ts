// Pins the per-agent surfaces' rules on the real wiring (surfaceFor), beyond what the goldens show.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_KINDS, AUTONOMOUS_DECISION_INSTRUCTION, directorPalette, surfaceFor } from '../../src/actors/tools/profiles.js';
import { BUILTIN_TOOLS } from '../../src/actors/tools/registry.js';
import { defineTool, ok, readTags, writeTags } from '../../src/actors/tools/define.js';
import type { ToolDeclaration } from '../../src/actors/tools/types.js';
import { callTool } from '../../src/actors/tools/adapter.js';
import { call, makeDeps, tempDir } from './helpers.js';

const names = (agent: Parameters<typeof surfaceFor>[0], o?: Parameters<typeof surfaceFor>[1]): string[] => surfaceFor(agent, o).list().map((d) => d.name);

describe('profiles', () => {
  it('director can never write: no fs_write or shell tool, even a newly registered one', () => {
    const newWriter = defineTool({ name: 'write_everything', description: 'x', schema: z.object({ path: z.string() }), tags: writeTags({ pathParams: ['path'], brief: () => '' }), execute: () => Promise.resolve(ok('')) }) as ToolDeclaration;
    const s = surfaceFor('director', { registry: [...BUILTIN_TOOLS, newWriter] });
    expect(s.list().filter((d) => d.tags.effect === 'fs_write' || d.tags.effect === 'shell')).toEqual([]);
    expect(s.get('write_everything')).toBeUndefined();
    expect(surfaceFor('coding', { registry: [...BUILTIN_TOOLS, newWriter] }).get('write_everything')).toBeDefined();
  });

  it('director delegates to every sub-agent; only repo also gets delegate_devops, run serially there', () => {
    expect(names('director').filter((n) => n.startsWith('delegate_'))).toEqual(['delegate_browser', 'delegate_chat', 'delegate_coding', 'delegate_devops', 'delegate_meta', 'delegate_repo']);
    expect(names('repo').filter((n) => n.startsWith('delegate_'))).toEqual(['delegate_devops']);
    expect(surfaceFor('repo').get('delegate_devops')?.tags.serial).toBe(true);
    expect(surfaceFor('director').get('delegate_repo')?.tags.serial).toBe(false);
    for (const a of ['coding', 'chat', 'devops', 'browser', 'meta'] as const) expect(names(a).some((n) => n.startsWith('delegate_'))).toBe(false);
  });

  it('the browser agent reaches the world only through its browser: no file tools, no shell; no other agent gets a browser tool', () => {
    const browser = surfaceFor('browser').list();
    expect(browser.some((d) => ['read', 'fs_write', 'shell'].includes(d.tags.effect))).toBe(false);
    expect(browser.filter((d) => d.name.startsWith('browser_')).map((d) => d.name)).toEqual(['browser_back', 'browser_click', 'browser_open', 'browser_press', 'browser_screenshot', 'browser_snapshot', 'browser_type']);
    expect(browser.map((d) => d.name)).toEqual(expect.arrayContaining(['agent_exit', 'list_notes', 'read_note', 'read_artifact']));
    for (const a of AGENT_KINDS.filter((k) => k !== 'browser' && k !== 'custom')) expect(names(a).some((n) => n.startsWith('browser_')), a).toBe(false);
    // a custom agent picks from the Director's palette, which has no network tool
    expect(directorPalette().some((d) => d.tags.effect === 'network')).toBe(false);
  });

  it('chat has no file access, devops has shell but no file writes, meta has nothing', () => {
    expect(surfaceFor('chat').list().some((d) => ['read', 'fs_write', 'shell'].includes(d.tags.effect))).toBe(false);
    expect(names('devops')).toContain('run_bash');
    expect(surfaceFor('devops').list().some((d) => d.tags.effect === 'fs_write')).toBe(false);
    expect(names('meta')).toEqual([]);
  });

  it('agent_exit is for sub-agents only, never the director', () => {
    expect(names('director')).not.toContain('agent_exit');
    for (const a of ['coding', 'repo', 'chat', 'devops'] as const) expect(names(a)).toContain('agent_exit');
  });

  it('-Y removes ask_user_for_help everywhere and sets the autonomous-decision flag', () => {
    for (const a of AGENT_KINDS.filter((k) => k !== 'custom' && k !== 'meta')) {
      expect(names(a)).toContain('ask_user_for_help');
      const s = surfaceFor(a, { fullYolo: true });
      expect(s.get('ask_user_for_help')).toBeUndefined();
      expect(s.autonomous).toBe(true);
    }
    expect(surfaceFor('coding').autonomous).toBe(false);
    expect(AUTONOMOUS_DECISION_INSTRUCTION).toMatch(/decisions yourself/);
  });

  it('custom = a chosen subset of the director palette (+ agent_exit); anything else is refused', () => {
    expect(names('custom', { tools: ['grep', 'read_file'] })).toEqual(['agent_exit', 'grep', 'read_file']);
    expect(() => surfaceFor('custom', { tools: ['edit_file'] })).toThrow(/not in the Director's palette: edit_file/);
    expect(() => surfaceFor('custom', { tools: ['delegate_coding'] })).toThrow(/palette/);
    expect(directorPalette().some((d) => d.tags.effect === 'delegate' || d.tags.effect === 'fs_write')).toBe(false);
  });

  it('external tools are always cold: listed in the catalogue, load_tool appears, schema sent only once loaded', () => {
    const ext = defineTool({ name: 'mcp__srv__lookup', description: 'Look things up.\nMore.', schema: z.object({ q: z.string() }), tags: readTags({ brief: () => '' }), execute: () => Promise.resolve(ok('found')) }) as ToolDeclaration;
    expect(names('coding')).not.toContain('load_tool');
    const s = surfaceFor('coding', { external: [ext] });
    expect(s.get('load_tool')).toBeDefined();
    expect(s.catalogue()).toEqual([{ name: 'mcp__srv__lookup', summary: 'Look things up.' }]);
    expect(s.defs().map((d) => d.name)).not.toContain('mcp__srv__lookup');
    expect(s.load('mcp__srv__lookup')).toMatch(/"q"/);
    expect(s.defs().map((d) => d.name)).toContain('mcp__srv__lookup');
    expect(s.catalogue()).toEqual([]);
  });

  it('-d withholds the disabled agents\' delegate_* tools on every surface, by the target tag', () => {
    expect(names('director', { disabledAgents: ['coding', 'devops'] }).filter((n) => n.startsWith('delegate_'))).toEqual(['delegate_browser', 'delegate_chat', 'delegate_meta', 'delegate_repo']);
    expect(names('repo', { disabledAgents: ['devops'] }).some((n) => n.startsWith('delegate_'))).toBe(false);
    expect(names('director', { disabledAgents: ['repo', 'coding', 'chat', 'devops', 'browser', 'meta'] }).some((n) => n.startsWith('delegate_'))).toBe(false);
    expect(surfaceFor('director', { disabledAgents: ['browser'] }).withheldReason('delegate_browser')).toMatch(/browser agent is disabled for this run \(-d browser, or \[browser\] enable = false\)/);
    const s = surfaceFor('director', { disabledAgents: ['coding'] });
    expect(s.withheldReason('delegate_coding')).toMatch(/coding agent is disabled/);
    expect(s.withheldReason('delegate_repo')).toBeUndefined();
    expect(s.defs().map((d) => d.name)).not.toContain('delegate_coding');
    for (const d of BUILTIN_TOOLS.filter((t) => t.tags.effect === 'delegate')) expect(d.name).toBe(`delegate_${d.tags.target ?? ''}`);
  });

  it('a call to a withheld tool gets a clear "disabled for this run" result, not "unknown tool"', async () => {
    const ws = tempDir();
    try {
      const deps = { ...makeDeps(ws.path), surface: surfaceFor('director', { disabledAgents: ['coding'] }) };
      const r = await callTool(call('delegate_coding', { task: 'write it' }), deps, new AbortController().signal);
      expect(r.status).toBe('error');
      expect(r.content).toContain('tool_disabled');
      expect(r.content).toContain('disabled for this run');
    } finally {
      ws.cleanup();
    }
  });

  it('provider definitions are sorted by name', () => {
    const defs = surfaceFor('coding').defs().map((d) => d.name);
    expect(defs).toEqual([...defs].sort());
    expect(defs.length).toBeGreaterThan(5);
  });
});
