// A slow MCP server does not stall the first delegation (issue 25 item 12): the agent starts at once with the
// catalogue it has, and the server's tools reach the RUNNING agent when it is ready. The server is the real
// server-everything behind a launcher that starts it only once the agent's first model request released it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from '../cli/helpers.js';
import { PRELUDE } from '../cli/scripts.js';
import { EVERYTHING } from './servers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

/** Waits for the release file, then runs server-everything over stdio in this process; \`<release>.up\` says it
 *  has loaded (the scripted model waits for that event, not for a number of its own steps). */
const LAUNCHER = `import { existsSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [release, server] = process.argv.slice(2);
while (!existsSync(release)) await new Promise((r) => setTimeout(r, 20));
process.argv = [process.argv[0], server, 'stdio'];
await import(pathToFileURL(server).href);
writeFileSync(release + '.up', 'yes');
`;

function script(release: string, first: string): string {
  return `${PRELUDE}
import { existsSync, writeFileSync } from 'node:fs';
const all = (req) => JSON.stringify(req.body.messages || []);
const system = (req) => { const m = (req.body.messages || [])[0]; return typeof m?.content === 'string' ? m.content : ''; };
const has = (req, name) => (req.body.tools || []).some((t) => (t.function?.name ?? t.name) === name);
let started = false;
const coding = async (req) => {
  if (!started) {
    // the first request: what the agent had at its start, and the server may start now
    started = true;
    writeFileSync(${JSON.stringify(first)}, system(req).includes('mcp__slow__') ? 'had the slow tools' : 'started without them');
    writeFileSync(${JSON.stringify(release)}, 'go');
  }
  if (all(req).includes('Echo: late ping')) return call('agent_exit', { conclusion: 'the late tool said Echo: late ping', facts: [], artifacts: [], status: 'ok' });
  if (has(req, 'mcp__slow__echo')) return call('mcp__slow__echo', { message: 'late ping' });
  if (all(req).includes('mcp__slow__echo')) return call('load_tool', { name: 'mcp__slow__echo' });
  // the model takes a moment per step while the server starts: until it has loaded (bounded below the 60 s idle timeouts), then 100 ms
  const end = Date.now() + 30_000;
  while (!existsSync(${JSON.stringify(release)} + '.up') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 100));
  return call('read_file', { path: 'README.md' });
};
export default {
  director: [call('delegate_coding', { task: 'echo through the slow MCP server', context_refs: [] }), ...times(3, (req) => say(all(req).includes('Echo: late ping') ? 'MCP LATE OK' : 'MCP LATE MISSING'))],
  coding: times(120, coding),
};
`;
}

describe('a slow MCP server', () => {
  it('the first delegation starts at once without its tools; they reach the running agent when the server is ready', async () => {
    sb = sandbox();
    const ws = project(sb, { 'README.md': '# fixture\n' });
    const release = join(sb.dir, 'release');
    const first = join(sb.dir, 'first-request');
    const launcher = join(sb.dir, 'slow-server.mjs');
    writeFileSync(launcher, LAUNCHER);
    // a start-up timeout far beyond the test: a client that waited for the server would stall here
    writeFileSync(join(sb.home, 'config', 'config.toml'), `${GOOD_CONFIG}\n[[mcp.servers]]\nname = "slow"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(launcher)}, ${JSON.stringify(release)}, ${JSON.stringify(EVERYTHING)}]\nstartup_timeout = "120s"\nagents = ["coding"]\n`);
    const r = await runCli(['-p', 'use the slow echo tool', '--output-format', 'json'], withScript(sb, script(release, first)), { cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(first, 'utf8')).toBe('started without them');
    expect(existsSync(release)).toBe(true);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'MCP LATE OK' });
  }, 90_000);
});
