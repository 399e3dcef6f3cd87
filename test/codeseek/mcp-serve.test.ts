// `yagent mcp serve-code` through the MCP SDK's own client over stdio: the six tools, read-only, answering.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, it } from 'vitest';
import { GO_FILES, tempRepo } from './fixtures.js';

const BIN = resolve(import.meta.dirname, '../../bin/yagent.js');
const home = mkdtempSync(join(tmpdir(), 'serve-code-'));
const ws = tempRepo(GO_FILES);
afterAll(() => [home, ws].forEach((d) => rmSync(d, { recursive: true, force: true })));

it('lists the six code tools as read-only and answers callers and a skeleton for the workspace it was given', async () => {
  mkdirSync(join(home, 'data'), { recursive: true });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', 'serve-code', '--workspace', ws], env: { PATH: process.env.PATH ?? '', HOME: home, YAGENT_HOME: join(home, 'y') }, stderr: 'pipe' });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['codeseek_callees', 'codeseek_callers', 'codeseek_callgraph', 'codeseek_search', 'codeseek_skeleton', 'codeseek_snippet']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const text = async (name: string, args: Record<string, unknown>): Promise<string> => {
      const r = await client.callTool({ name, arguments: args });
      return (r.content as { text: string }[]).map((c) => c.text).join('');
    };
    // the first answers may come while the index builds: ask until it is whole
    let callers = '';
    for (let i = 0; i < 50 && !callers.includes('2 call site(s)'); i++) callers = await text('codeseek_callers', { name: 'format' });
    expect(callers).toContain('main.go:10-12 method Greet — calls at line 11');
    expect(callers).toContain('main.go:18-21 function main — calls at line 20');
    expect(await text('codeseek_skeleton', { paths: ['main.go'] })).toContain('14-16 func format(s string) string');
    const outside = await client.callTool({ name: 'codeseek_snippet', arguments: { name: 'x', path: '/etc/passwd' } });
    expect(outside.isError).toBe(true);
  } finally {
    await client.close();
  }
}, 60_000);
