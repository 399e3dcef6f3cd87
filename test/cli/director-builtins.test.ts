// The Director's path to its first model request (issue 29): the builtins its worker loads before that request are
// on every start's critical path, so the ones it does not need there load at their first use (lazy-builtins.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GOOD_CONFIG, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

/** The builtins the Director's thread had loaded when it sent its first model request (YAGENT_TRACE_BUILTINS). */
async function directorBuiltinsAtFirstRequest(): Promise<string[]> {
  sb = sandbox(GOOD_CONFIG);
  const ws = join(sb.dir, 'ws');
  mkdirSync(ws);
  const script = 'export default { director: [{ text: "hello", finishReason: "stop" }] };\n';
  const run = await runCli(['-d', 'all', '-p', 'hi?'], { ...withScript(sb, script), YAGENT_TRACE: '1', YAGENT_TRACE_BUILTINS: '1' }, { cwd: ws });
  expect(run.code).toBe(0);
  const director = /thread (\d+): start director/.exec(run.stderr)?.[1];
  expect(director).toBeDefined();
  const line = run.stderr.split('\n').find((l) => l.includes(`thread ${director ?? ''}: first model request sent`));
  const list = /\[builtins: ([^\]]*)\]/.exec(line ?? '')?.[1];
  expect(list).toBeDefined();
  return (list ?? '').split(' ');
}

describe("the Director's worker before its first model request", () => {
  it('has not loaded node:crypto (its ids come from the kernel CSPRNG), nor child_process (no tool has run yet); it has node:http, which the request needs', async () => {
    const loaded = await directorBuiltinsAtFirstRequest();
    expect(loaded).toContain('node:http');
    expect(loaded).not.toContain('node:crypto');
    expect(loaded).not.toContain('node:child_process');
  });
});
