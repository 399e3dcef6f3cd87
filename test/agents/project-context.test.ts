import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectContext, pathsNamedIn, MODULE_DOC_MAX_DOCS } from '../../src/actors/agents/project-context.js';

function ws(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'yagent-ctx-'));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

describe('project context', () => {
  it('concatenates every root doc found, not just the first', async () => {
    const c = new ProjectContext(ws({ 'YAGENT.md': 'Y-DOC', 'CLAUDE.md': 'C-DOC', 'AGENTS.md': 'A-DOC' }));
    const r = await c.rootContext();
    expect(r.files).toEqual(['YAGENT.md', 'CLAUDE.md', 'AGENTS.md']);
    expect(r.text).toContain('Y-DOC');
    expect(r.text).toContain('C-DOC');
    expect(r.text).toContain('A-DOC');
  });

  it('caches the root docs per session', async () => {
    const root = ws({ 'AGENTS.md': 'first' });
    const c = new ProjectContext(root);
    await c.rootContext();
    writeFileSync(join(root, 'AGENTS.md'), 'second');
    expect((await c.rootContext()).text).toContain('first');
  });

  it('adds the named directory docs and their ancestors deepest first, never the root one', async () => {
    const c = new ProjectContext(ws({ 'AGENTS.md': 'ROOT', 'src/AGENTS.md': 'SRC', 'src/store/AGENTS.md': 'STORE', 'bin/AGENTS.md': 'BIN' }));
    const d = await c.moduleDocsForTask('Fix the flush bug in src/store/writer.ts please');
    expect(d.included).toEqual(['src/store/AGENTS.md', 'src/AGENTS.md']);
    expect(d.text).not.toContain('ROOT');
    expect(d.text).not.toContain('BIN');
    expect(d.text.indexOf('STORE')).toBeLessThan(d.text.indexOf('SRC'));
  });

  it('keeps at most 3 documents and says what was left out', async () => {
    const c = new ProjectContext(ws({ 'a/AGENTS.md': 'A', 'a/b/AGENTS.md': 'B', 'a/b/c/AGENTS.md': 'C', 'a/b/c/d/AGENTS.md': 'D' }));
    const d = await c.moduleDocsForTask('look at a/b/c/d/x.ts');
    expect(d.included).toHaveLength(MODULE_DOC_MAX_DOCS);
    expect(d.omitted).toEqual(['a/AGENTS.md']);
    expect(d.text).toContain('left out');
    expect(d.text).toContain('a/AGENTS.md');
  });

  it('keeps within 12 KB', async () => {
    const big = 'x'.repeat(7 * 1024);
    const c = new ProjectContext(ws({ 'p/AGENTS.md': big, 'p/q/AGENTS.md': big }));
    const d = await c.moduleDocsForTask('change p/q/file.ts');
    expect(d.included).toEqual(['p/q/AGENTS.md']);
    expect(d.omitted).toEqual(['p/AGENTS.md']);
  });

  it('finds path tokens, not prose with single words', () => {
    expect(pathsNamedIn('see `src/store/` and ./bin/cli.ts, not store')).toEqual(['src/store', 'bin/cli.ts']);
  });
});
