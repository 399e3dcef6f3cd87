// `yagent mcp list|tools|call` as a real subprocess against real MCP servers from npm: output and exit codes.
import { afterEach, describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../bin/cli/mcp.js';
import { GOOD_CONFIG, runCli, sandbox, type Sandbox } from '../cli/helpers.js';
import { EVERYTHING, everythingHttp } from './servers.js';

let sb: Sandbox | undefined;
const stops: (() => void)[] = [];
afterEach(() => {
  sb?.cleanup();
  for (const s of stops.splice(0)) s();
});

const node = JSON.stringify(process.execPath);
const configured = `${GOOD_CONFIG}
[[mcp.servers]]
name = "every"
command = ${node}
args = [${JSON.stringify(EVERYTHING)}, "stdio"]

[[mcp.servers]]
name = "dead"
command = ${node}
args = ["-e", "process.exit(5)"]
startup_timeout = "5s"
`;

describe('yagent mcp', () => {
  it('command lines split on spaces and honour quotes', () => {
    expect(splitCommandLine(`node "/a b/c.js" stdio 'x y'`)).toEqual(['node', '/a b/c.js', 'stdio', 'x y']);
  });

  it('list shows each configured server with its state and tool count; a failed one makes it exit 1', async () => {
    sb = sandbox(configured);
    const r = await runCli(['mcp', 'list'], sb.env);
    expect(r.stdout).toMatch(/^ok\s+every\s+stdio\s+\d+ tools/m);
    expect(r.stdout).toMatch(/^FAIL dead\s+stdio/m);
    expect(r.code).toBe(1);
  });

  it('tools SERVER lists names with read-only / write marks; call prints the result (exit 0)', async () => {
    sb = sandbox(configured);
    const tools = await runCli(['mcp', 'tools', 'every'], sb.env);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toMatch(/^echo\s+read-only\s+/m);
    expect(tools.stdout).toMatch(/^toggle-subscriber-updates\s+(write|destructive)/m);
    const call = await runCli(['mcp', 'call', 'every', 'echo', '{"message":"from the cli"}'], sb.env);
    expect(call).toMatchObject({ code: 0, stdout: 'Echo: from the cli\n' });
  });

  it('SERVER may be a quoted stdio command line or an http URL', async () => {
    sb = sandbox(GOOD_CONFIG);
    const byCmd = await runCli(['mcp', 'call', `${process.execPath} ${EVERYTHING} stdio`, 'get-sum', '{"a":1,"b":2}'], sb.env);
    expect(byCmd.code, byCmd.stderr).toBe(0);
    expect(byCmd.stdout).toContain('3');
    const srv = await everythingHttp();
    stops.push(srv.stop);
    const byUrl = await runCli(['mcp', 'call', srv.url, 'echo', '{"message":"web"}'], sb.env);
    expect(byUrl).toMatchObject({ code: 0, stdout: 'Echo: web\n' });
  });

  it('a tool error exits 1; an unknown server, bad JSON and an invalid config exit 2', async () => {
    sb = sandbox(configured);
    const toolErr = await runCli(['mcp', 'call', 'every', 'get-sum', '{"a":"not a number"}'], sb.env);
    expect(toolErr.code).toBe(1);
    expect(toolErr.stderr.length).toBeGreaterThan(0);
    expect((await runCli(['mcp', 'tools', 'nosuch'], sb.env)).code).toBe(2);
    const badJson = await runCli(['mcp', 'call', 'every', 'echo', '{oops'], sb.env);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/JSON_ARGS must be one JSON object/);
    const broken = sandbox(`${GOOD_CONFIG}\n[[mcp.servers]]\nname = "x"\n`);
    stops.push(broken.cleanup);
    const cfg = await runCli(['mcp', 'list'], broken.env);
    expect(cfg.code).toBe(2);
    expect(cfg.stderr).toMatch(/config error: a server needs exactly one of command or url/);
  });
});
