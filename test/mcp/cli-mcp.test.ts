// `yagent mcp list|tools|call` as a real subprocess against real MCP servers from npm: output and exit codes.
import { afterEach, describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../bin/cli/mcp.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect, GOOD_CONFIG, runCli, sandbox, start, until, type Sandbox } from '../cli/helpers.js';
import { EVERYTHING, everythingHttp, freePort, TAP, tapLog } from './servers.js';

/** Live processes whose command line names `mark` (this test's tap log: the tap and nothing else). */
function pidsNaming(mark: string): number[] {
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
    try {
      return readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(mark);
    } catch {
      return false;
    }
  }).map(Number);
}

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

  it('a tool error exits 1 with what the tool takes; an unknown server, bad JSON and an invalid config exit 2', async () => {
    sb = sandbox(configured);
    const toolErr = await runCli(['mcp', 'call', 'every', 'get-sum', '{"a":"not a number"}'], sb.env);
    expect(toolErr.code).toBe(1);
    expect(toolErr.stderr).toMatch(/^yagent mcp: get-sum failed: .*expected number/m);
    expect(toolErr.stderr).toContain('  fix:   get-sum takes {a: number, b: number}');
    expect((await runCli(['mcp', 'tools', 'nosuch'], sb.env)).code).toBe(2);
    const badJson = await runCli(['mcp', 'call', 'every', 'echo', '{oops'], sb.env);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/^yagent mcp: JSON_ARGS is not valid JSON/);
    const array = await runCli(['mcp', 'call', 'every', 'echo', '[1]'], sb.env);
    expect(array).toMatchObject({ code: 2, stderr: expect.stringMatching(/JSON_ARGS is an array, not one JSON object\n  fix: /) });
    const broken = sandbox(`${GOOD_CONFIG}\n[[mcp.servers]]\nname = "x"\n`);
    stops.push(broken.cleanup);
    const cfg = await runCli(['mcp', 'list'], broken.env);
    expect(cfg.code).toBe(2);
    expect(cfg.stderr).toMatch(/config error: a server needs exactly one of command or url/);
  });

  it('works before any model is configured: a config with only a server lists it; a fresh data root says where to add one', async () => {
    const only = sandbox(`[[mcp.servers]]\nname = "every"\ncommand = ${node}\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\n`);
    stops.push(only.cleanup);
    const listed = await runCli(['mcp', 'list'], only.env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ok\s+every\s+stdio\s+\d+ tools/m);
    sb = sandbox();
    const list = await runCli(['mcp', 'list'], sb.env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`no MCP servers configured in ${join(sb.home, 'config', 'config.toml')}`);
    const named = await runCli(['mcp', 'tools', 'every'], sb.env);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/^yagent mcp: no MCP server "every": .*config\.toml configures none/);
    const direct = await runCli(['mcp', 'call', `${process.execPath} ${EVERYTHING} stdio`, 'echo', '{"message":"no model needed"}'], sb.env);
    expect(direct).toMatchObject({ code: 0, stdout: 'Echo: no model needed\n' });
  });

  it('a typo in a server, tool or command name is exit 2 with the near name', async () => {
    sb = sandbox(configured);
    const server = await runCli(['mcp', 'tools', 'evry'], sb.env);
    expect(server).toMatchObject({ code: 2, stderr: expect.stringMatching(/^yagent mcp: no MCP server "evry" in .*; did you mean "every"\?\n  fix:   name one of: every, dead;/) });
    const tool = await runCli(['mcp', 'call', 'every', 'ech', '{}'], sb.env);
    expect(tool).toMatchObject({ code: 2, stderr: expect.stringMatching(/has no tool "ech"; did you mean "echo"\?\n  fix:   yagent mcp tools every lists its tools/) });
    const cmd = await runCli(['mcp', 'lst'], sb.env);
    expect(cmd).toMatchObject({ code: 2, stderr: expect.stringMatching(/^yagent mcp: unknown command "lst"; did you mean "list"\?/) });
  });

  it('a URL that refuses, a command that is not an MCP server and a missing command each say so in one line', async () => {
    sb = sandbox(GOOD_CONFIG);
    const refused = await runCli(['mcp', 'tools', `http://127.0.0.1:${await freePort()}/mcp`], sb.env);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^yagent mcp: cannot connect to MCP server http:\/\/127\.0\.0\.1:\d+\/mcp: fetch failed \(connect ECONNREFUSED .*\)\n  fix:   check that an MCP server \(Streamable HTTP\) is running at that URL\n$/) });
    const notMcp = await runCli(['mcp', 'tools', `${process.execPath} -e "console.log('hello')"`], sb.env);
    expect(notMcp).toMatchObject({ code: 1, stderr: expect.stringMatching(/^yagent mcp: cannot connect to MCP server .*: .*closed.*"hello".*\n  fix:   check that the command starts an MCP server on stdio/) });
    const missing = await runCli(['mcp', 'tools', 'no-such-mcp-binary --stdio'], sb.env);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/^yagent mcp: command "no-such-mcp-binary" not found on PATH\n  fix: /) });
  });

  it('Ctrl-C during a slow call cancels it on the server: exit 130, one line, no server left', async () => {
    sb = sandbox(GOOD_CONFIG);
    const log = join(sb.dir, 'tap.jsonl');
    const tapped = [process.execPath, TAP, log, 'log', '--', process.execPath, EVERYTHING, 'stdio'].map((w) => `"${w}"`).join(' ');
    const child = start(['mcp', 'call', tapped, 'trigger-long-running-operation', '{"duration":60,"steps":60}'], sb.env);
    const done = collect(child);
    await until(() => (tapLog(log).some((m) => m.method === 'tools/call') ? true : undefined), 'the call to reach the server');
    child.kill('SIGINT');
    const r = await done;
    expect(r).toMatchObject({ code: 130, stdout: '', stderr: 'yagent mcp: cancelled (the server was sent notifications/cancelled)\n' });
    expect(tapLog(log).some((m) => m.method === 'notifications/cancelled')).toBe(true);
    expect(pidsNaming(log)).toEqual([]);
  });
});
