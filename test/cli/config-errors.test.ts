// Issue 22, errors the config fuzzer found, through the real CLI: each is exit 2 with what / where / fix on stderr,
// the key named and the closest name offered; an echoed 1 MB value no longer pushes the fix line off a pipe.
import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_CONFIG, project, runCli, sandbox, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

async function broken(extra: string): Promise<{ code: number | null; stderr: string }> {
  sb?.cleanup();
  sb = sandbox(GOOD_CONFIG + extra);
  const ws = project(sb);
  const r = await runCli(['-p', 'hi'], sb.env, { cwd: ws });
  return { code: r.code, stderr: r.stderr };
}

describe('config errors the fuzzer found', () => {
  const cases: [string, string, RegExp][] = [
    ['an empty [tools.llm] compression.use_provider (the run panicked, exit 1)', '\n[tools.llm]\ncompression.use_provider = ""\n', /use_provider is empty[\s\S]*where: .*\[tools\.llm\] compression\.use_provider[\s\S]*fix: /],
    ['an empty [agents.llm] use_provider', '\n[agents.llm]\nuse_provider = ""\n', /use_provider is empty[\s\S]*\[agents\.llm\] use_provider/],
    ['a typo of an agent under [agents.llm]', '\n[agents.llm]\ncodng.use_provider = "p"\n', /names no agent "codng"[\s\S]*\[agents\.llm\] codng[\s\S]*fix: +did you mean "coding"\?/],
    ['a provider name written as a plain value under [agents.llm]', '\n[agents.llm]\ncoding = "p"\n', /coding = "p" is not a table[\s\S]*fix: +write coding\.use_provider = "p"/],
    ['an undefined provider under [agents.llm]', '\n[agents.llm]\ncoding.use_provider = "pp"\n', /provider "pp" is not defined[\s\S]*\[agents\.llm\] coding\.use_provider[\s\S]*fix: +did you mean "p"\?/],
    ['a typo of an agent under [routing.baselines]', '\n[routing.baselines]\nreppo = "high"\n', /names no agent "reppo"[\s\S]*\[routing\.baselines\] reppo[\s\S]*fix: +did you mean "repo"\?/],
  ];
  for (const [what, extra, want] of cases) {
    it(`${what}: exit 2, the key named`, async () => {
      const r = await broken(extra);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(want);
    });
  }

  it('an error echoing a 1 MB value keeps its where and fix lines, each line capped', async () => {
    sb = sandbox(GOOD_CONFIG.replace('http://127.0.0.1:9/v1', 'x'.repeat(1 << 20)));
    const ws = project(sb);
    const r = await runCli(['-p', 'hi'], sb.env, { cwd: ws });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.map((l) => l.replace(/:.*/, ''))).toEqual(['yagent', '  where', '  fix']);
    expect(lines[0]).toMatch(/is not an http\(s\) URL|more characters/);
    expect(r.stderr.length).toBeLessThan(2_000);
  });

  it('a bad argument echoing a long value is capped the same way', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'hi', '--output-format', 'y'.repeat(100_000)], sb.env, { cwd: sb.dir });
    expect(r.code).toBe(1);
    expect(r.stderr.length).toBeLessThan(2_000);
    expect(r.stderr).toMatch(/more characters/);
  });
});
