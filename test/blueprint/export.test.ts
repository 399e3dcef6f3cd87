// `[blueprint] export_path`: the blueprint mirrored into a workspace Markdown file between marker comments after each
// fold (the rest of the file kept byte for byte), and a bad value refused when the config loads.
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Blueprint } from '../../src/actors/blueprint/blueprint.js';
import { EXPORT_BEGIN, EXPORT_END } from '../../src/actors/blueprint/export.js';
import { codeSeekFacade } from '../../src/actors/codeseek/codeseek-actor.js';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { ManualClock, realClock } from '../../src/runtime/clock.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { storeIn, tempRoot } from '../store/helpers.js';
import { TS_FILES, tempRepo } from '../codeseek/fixtures.js';
import { cfg } from '../config/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const projectId = 'export-1';

function setup(exportPath: string) {
  const ws = tempRepo({ 'package.json': '{"name":"x","main":"src/main.ts"}\n', ...TS_FILES });
  const home = tempRoot();
  dirs.push(ws, home.dir);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const events: string[] = [];
  const code = codeSeekFacade(new CodeSeek({ tasks: createTaskGroup(), clock: realClock }), 30_000);
  const bp = new Blueprint({ store: storeIn(home.dir), code, publish: (e) => void events.push(JSON.stringify(e)), now: () => clock.now(), config: { enabled: true, injectInto: ['repo'], indexMaxTokens: 800, proseBudgetTokens: 2000, exportPath } });
  return { ws, bp, events };
}

describe('blueprint export', () => {
  it('ExportPathWritesTheBlockAndKeepsTheRest: each fold rewrites only the fenced block of the named file', async () => {
    const { ws, bp } = setup('AGENTS.md');
    const mine = '# Our agents guide\n\nHand-written rules stay.\n';
    writeFileSync(join(ws, 'AGENTS.md'), mine, { mode: 0o640 });
    await bp.fold(ws, projectId, ['Calc in src/math.ts keeps a total']);
    const once = readFileSync(join(ws, 'AGENTS.md'), 'utf8');
    expect(once.startsWith(`${mine}\n${EXPORT_BEGIN}\n## Repository blueprint\n`)).toBe(true);
    expect(once).toContain('- src (2, typescript)');
    expect(once).toContain('- Calc in src/math.ts keeps a total');
    expect(once).not.toContain('<!-- anchors');
    expect(once.endsWith(`${EXPORT_END}\n`)).toBe(true);
    writeFileSync(join(ws, 'AGENTS.md'), `${once}\nA line a person added after the block.\n`);
    await bp.fold(ws, projectId, ['run() in src/main.ts is the entry']);
    const twice = readFileSync(join(ws, 'AGENTS.md'), 'utf8');
    expect(twice.split(EXPORT_BEGIN)).toHaveLength(2);
    expect(twice.startsWith(mine)).toBe(true);
    expect(twice).toContain('- run() in src/main.ts is the entry');
    expect(twice.endsWith(`${EXPORT_END}\n\nA line a person added after the block.\n`)).toBe(true);
    expect(statSync(join(ws, 'AGENTS.md')).mode & 0o777).toBe(0o640);
  });

  it('ExportPathCreatesTheFile in a new directory, readable by others like any workspace file; empty = no export', async () => {
    const { ws, bp } = setup('docs/BLUEPRINT.md');
    await bp.fold(ws, projectId, ['Calc in src/math.ts keeps a total']);
    expect(readFileSync(join(ws, 'docs/BLUEPRINT.md'), 'utf8').startsWith(EXPORT_BEGIN)).toBe(true);
    expect(statSync(join(ws, 'docs')).mode & 0o777).not.toBe(0o700);
    const off = setup('');
    await off.bp.fold(off.ws, projectId, ['Calc in src/math.ts keeps a total']);
    expect(existsSync(join(off.ws, 'docs'))).toBe(false);
  });

  it('ExportPathValidatedAtLoad: absolute, outside, directory, non-Markdown and .git paths stop the load with the reason', () => {
    expect(cfg('[blueprint]\nexport_path = "docs/BLUEPRINT.md"').blueprint.exportPath).toBe('docs/BLUEPRINT.md');
    expect(cfg('[blueprint]\nexport_path = "docs/BLUEPRINT.md"').warnings).toEqual([]);
    expect(cfg().blueprint.exportPath).toBe('');
    expect(() => cfg('[blueprint]\nexport_path = "/etc/blueprint.md"')).toThrow(/export_path[\s\S]*must be relative to the workspace root/);
    expect(() => cfg('[blueprint]\nexport_path = "../elsewhere.md"')).toThrow(/must stay inside the workspace/);
    expect(() => cfg('[blueprint]\nexport_path = "docs/"')).toThrow(/names a directory/);
    expect(() => cfg('[blueprint]\nexport_path = "notes.txt"')).toThrow(/must name a Markdown file/);
    expect(() => cfg('[blueprint]\nexport_path = ".git/info.md"')).toThrow(/must not point into \.git/);
  });
});
