// End to end on real workers and a real MCP server (server-everything over stdio), only the model scripted:
// Coding finds the tool in its deferred catalogue, loads it, calls it, and the result reaches the next request.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from '../cli/helpers.js';
import { PRELUDE } from '../cli/scripts.js';
import { EVERYTHING, everythingHttp, FILESYSTEM } from './servers.js';

let sb: Sandbox | undefined;
const stops: (() => void)[] = [];
afterEach(() => {
  sb?.cleanup();
  for (const s of stops.splice(0)) s();
});

/** The MCP workspace holds only a README (no package.json for the agents to read). */
const README = { 'README.md': '# fixture\n' };
const mcpConfig = (servers: string): string => `${GOOD_CONFIG}\n${servers}`;

/** The agent starts before its MCP servers are ready (nobody waits for them): `listed(names, steps)` reads a file
 *  each step (the model's pace: 100 ms, then 500 ms after 20 steps: some 40 s for a server start on a loaded box,
 *  each request far below the idle timeouts) until every name reached the request (system prompt or the later
 *  [mcp tools changed] note), then plays `steps` (values or functions of the request). */
const LISTED = `
const listed = (names, steps) => {
  let i = 0;
  let waited = 0;
  const missing = (req) => names.some((n) => !JSON.stringify(req.body.messages || []).includes(n));
  return Array.from({ length: 100 }, () => async (req) => {
    if (i === 0 && missing(req)) { await new Promise((r) => setTimeout(r, waited++ < 20 ? 100 : 500)); return call('read_file', { path: 'README.md' }); }
    const s = steps[Math.min(i++, steps.length - 1)];
    return typeof s === 'function' ? s(req) : s;
  });
};
`;
const everything = `[[mcp.servers]]\nname = "every"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\n`;

const ECHO_SCRIPT = `${PRELUDE}${LISTED}
const all = (req) => JSON.stringify(req.body.messages || []);
const system = (req) => { const m = (req.body.messages || [])[0]; return typeof m?.content === 'string' ? m.content : ''; };
export default {
  director: [call('delegate_coding', { task: 'echo through MCP', context_refs: [] }), ...times(6, (req) => say(all(req).includes('Echo: ping from coding') ? 'MCP OK' : 'MCP MISSING'))],
  coding: listed(['mcp__every__echo'], [
    (req) => system(req).includes('mcp__every__echo') || all(req).includes('[mcp tools changed]') ? call('load_tool', { name: 'mcp__every__echo' }) : say('no catalogue'),
    (req) => (req.body.tools || []).some((t) => (t.function?.name ?? t.name) === 'mcp__every__echo') ? call('mcp__every__echo', { message: 'ping from coding' }) : say('schema not loaded'),
    (req) => call('agent_exit', { conclusion: all(req).includes('Echo: ping from coding') ? 'the tool said Echo: ping from coding' : 'no echo', facts: [], artifacts: [], status: 'ok' }),
    say('done'),
  ]),
};
`;

describe('MCP tools in an agent run', () => {
  it('Coding loads and calls an MCP tool; its result reaches the next request and the Director', async () => {
    sb = sandbox(mcpConfig(everything));
    const r = await runCli(['-p', 'use the echo tool', '--output-format', 'json'], withScript(sb, ECHO_SCRIPT), { cwd: project(sb, README) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'MCP OK' });
  });

  it('a write tool of an MCP server needs approval: headless without -y exits 3 and nothing is written', async () => {
    sb = sandbox();
    const ws = project(sb, README);
    const target = join(ws, 'from-mcp.txt');
    writeFileSync(join(sb.home, 'config', 'config.toml'), mcpConfig(`[[mcp.servers]]\nname = "fs"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(ws)}]\n`));
    const script = `${PRELUDE}${LISTED}
export default {
  director: [call('delegate_coding', { task: 'write through MCP', context_refs: [] }), ...times(6, say('done'))],
  coding: listed(['mcp__fs__write_file'], [
    call('load_tool', { name: 'mcp__fs__write_file' }),
    call('mcp__fs__write_file', { path: ${JSON.stringify(target)}, content: 'x' }),
    call('agent_exit', { conclusion: 'tried', facts: [], artifacts: [], status: 'ok' }),
    say('done'),
  ]),
};
`;
    const r = await runCli(['-p', 'write it'], withScript(sb, script), { cwd: ws });
    expect(r.code, r.stderr).toBe(3);
    expect(existsSync(target)).toBe(false);
    const ok = await runCli(['-p', 'write it', '-y'], withScript(sb, script), { cwd: ws });
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(target)).toBe(true);
  });

  it('a server that cannot start is reported on stderr and the run still finishes', async () => {
    sb = sandbox(mcpConfig(`[[mcp.servers]]\nname = "broken"\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["-e", "process.exit(4)"]\nstartup_timeout = "5s"\n`));
    // Coding starts while the server is still connecting; its failure reaches the running agent (and stderr)
    const script = `${PRELUDE}${LISTED}
export default {
  director: [call('delegate_coding', { task: 'anything', context_refs: [] }), ...times(6, say('finished anyway'))],
  coding: listed(['MCP server broken failed'], [call('agent_exit', { conclusion: 'nothing to do', facts: [], artifacts: [], status: 'ok' }), say('done')]),
};
`;
    const r = await runCli(['-p', 'go'], withScript(sb, script), { cwd: project(sb, README) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('finished anyway');
    expect(r.stderr).toMatch(/MCP server broken failed: .*not available to coding/);
  });

  it('a large MCP result goes to an artifact: the request carries its head and the id, read_artifact pages the rest', async () => {
    sb = sandbox(mcpConfig(everything));
    const big = 'x'.repeat(30_000);
    const script = `${PRELUDE}${LISTED}
const toolMsgs = (req) => (req.body.messages || []).filter((m) => m.role === 'tool').map((m) => typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
const idOf = (req) => { const m = /artifact ([A-Za-z0-9_.:-]+); page it/.exec(toolMsgs(req).join('\\n')); return m ? m[1] : 'none'; };
export default {
  director: [call('delegate_coding', { task: 'echo something big', context_refs: [] }), ...times(6, (req) => say(JSON.stringify(req.body.messages).includes('PAGED OK') ? 'BIG OK' : 'BIG MISSING'))],
  coding: listed(['mcp__every__echo'], [
    call('load_tool', { name: 'mcp__every__echo' }),
    call('mcp__every__echo', { message: ${JSON.stringify(big)} }),
    (req) => { const last = toolMsgs(req).at(-1) || ''; return last.length < 5000 && idOf(req) !== 'none' ? call('read_artifact', { id: idOf(req), offset: 29000 }) : say('inline: ' + last.length); },
    // the echo's result is the short head with the id, the last result is the page read_artifact returned
    (req) => { const [echo = '', page = ''] = toolMsgs(req).slice(-2); return call('agent_exit', { conclusion: echo.length < 5000 && echo.includes('page it with read_artifact') && page.includes('xxxx') ? 'PAGED OK' : 'no page', facts: [], artifacts: [], status: 'ok' }); },
    say('done'),
  ]),
};
`;
    const r = await runCli(['-p', 'big', '--output-format', 'json'], withScript(sb, script), { cwd: project(sb, README) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'BIG OK' });
  });

  it('over Streamable HTTP: Coding loads and calls a tool, and a tool error reaches the model as an error result', async () => {
    const srv = await everythingHttp();
    stops.push(srv.stop);
    sb = sandbox(mcpConfig(`[[mcp.servers]]\nname = "web"\nurl = "${srv.url}"\n`));
    const script = `${PRELUDE}${LISTED}
const all = (req) => JSON.stringify(req.body.messages || []);
const last = (req) => { const t = (req.body.messages || []).filter((m) => m.role === 'tool').at(-1); return t ? JSON.stringify(t.content) : ''; };
export default {
  director: [call('delegate_coding', { task: 'sum over http', context_refs: [] }), ...times(6, (req) => say(all(req).includes('HTTP OK') ? 'HTTP OK' : 'HTTP MISSING'))],
  coding: listed(['mcp__web__get-sum'], [
    call('load_tool', { name: 'mcp__web__get-sum' }),
    call('mcp__web__get-sum', { a: 20, b: 22 }),
    (req) => last(req).includes('42') ? call('mcp__web__get-sum', { a: 'twenty', b: 22 }) : say('no sum: ' + last(req)),
    (req) => call('agent_exit', { conclusion: last(req).includes('mcp_tool_error') ? 'HTTP OK' : 'no error result: ' + last(req), facts: [], artifacts: [], status: 'ok' }),
    say('done'),
  ]),
};
`;
    const r = await runCli(['-p', 'sum', '--output-format', 'json'], withScript(sb, script), { cwd: project(sb, README) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'HTTP OK' });
  });

  it('agents see only the servers that list them (default: coding, repo, devops; never the Director unless named)', async () => {
    sb = sandbox();
    const ws = project(sb, README);
    writeFileSync(join(sb.home, 'config', 'config.toml'), mcpConfig(`${everything}agents = ["repo"]\n\n[[mcp.servers]]\nname = "fs"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(ws)}]\n`));
    const script = `${PRELUDE}${LISTED}
const all = (req) => JSON.stringify(req.body.messages || []);
const system = (req) => { const m = (req.body.messages || [])[0]; return typeof m?.content === 'string' ? m.content : ''; };
export default {
  director: [
    (req) => system(req).includes('mcp__') ? say('DIRECTOR SAW MCP') : call('delegate_coding', { task: 'look', context_refs: [] }),
    ...times(6, (req) => say(all(req).includes('VIS OK') ? 'VIS OK' : 'VIS WRONG')),
  ],
  coding: listed(['mcp__fs__read_text_file'], [
    (req) => call('agent_exit', { conclusion: all(req).includes('mcp__fs__read_text_file') && !all(req).includes('mcp__every__') ? 'VIS OK' : 'coding saw the wrong servers', facts: [], artifacts: [], status: 'ok' }),
    say('done'),
  ]),
};
`;
    const r = await runCli(['-p', 'look', '--output-format', 'json'], withScript(sb, script), { cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'VIS OK' });
  });
});
