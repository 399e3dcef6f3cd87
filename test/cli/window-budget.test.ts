// The window caps what one tool step adds, compression on or off, through the real CLI against the fake llama-server
// (its own tokenizer, denser than ours, and its own refusal over n_ctx: `fake.promptTokens`).
import { afterEach, describe, expect, it } from 'vitest';
import { StreamLineSchema } from '../../bin/cli/stream-json.js';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

const lines = (stdout: string) => stdout.trim().split('\n').map((l) => StreamLineSchema.parse(JSON.parse(l)));
/** ~45 KB of code, like a module a model reads whole. */
const BIG = Array.from({ length: 700 }, (_, i) => `export function handler${i}(req: Request) { return route(${i}, req); }`).join('\n');
const COMPRESSION_OFF = `${GOOD_CONFIG}\n[enhanced_commander]\nenable_context_compression = false\n`;

/** A llama-server with -c `window` whose tokenizer counts ~1.2 tokens per 4 characters of the request (its prompt
 *  JSON and tool definitions); what it answered is written to `out` for the test to read. */
const llama = (window: number, body: string): string => `${PRELUDE}
export default (fake) => {
  fake.flavour = 'llama.cpp';
  fake.window = ${window};
  fake.promptTokens = (r) => Math.ceil(((JSON.stringify(r.body.messages).length + JSON.stringify(r.body.tools ?? []).length) * 1.2) / 4);
${body}
};
`;

describe('compression off: the window still caps a tool result', () => {
  it('a 45 KB read against an n_ctx 8192 llama-server with compression off is cut to fit; the run finishes', async () => {
    sb = sandbox(COMPRESSION_OFF);
    const script = llama(8192, `
  fake.script('director', call('read_file', { path: 'big.ts' }, '<thought>\\ngoal: read\\nstep: read big.ts\\nreason: test\\n</thought>'), (req) => say('read ' + lastTool(req).length + ' chars'));`);
    const r = await runCli(['-d', 'all', '-p', 'read big.ts', '--output-format', 'stream-json'], withScript(sb, script), { cwd: project(sb, { 'big.ts': BIG }) });
    const out = lines(r.stdout);
    expect(out.filter((l) => l.type.startsWith('context_'))).toEqual([]);
    expect(r.stderr).not.toMatch(/exceeds the available context size/);
    expect(r.code).toBe(0);
    const read = Number(/read (\d+) chars/.exec(r.stdout)?.[1]);
    // the result keeps a useful head, cut well under the window (a quarter of it at ~3 chars a token, at most)
    expect(read).toBeGreaterThan(2_000);
    expect(read).toBeLessThan(8192 * 0.25 * 3 + 1_000);
  }, 60_000);
});
