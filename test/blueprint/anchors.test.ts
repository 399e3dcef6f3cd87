// Three-state anchors of blueprint prose (fresh / stale / orphaned) and the 90-day ageing of orphans, on real files,
// a real store and a real code index; time is a manual clock.
import { readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ORPHAN_TTL_MS } from '../../src/actors/blueprint/anchors.js';
import { Blueprint } from '../../src/actors/blueprint/blueprint.js';
import { codeSeekFacade } from '../../src/actors/codeseek/codeseek-actor.js';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { ManualClock, realClock } from '../../src/runtime/clock.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { storeIn, tempRoot } from '../store/helpers.js';
import { TS_FILES, tempRepo, writeTree } from '../codeseek/fixtures.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const DAY = 24 * 60 * 60 * 1000;
const projectId = 'anchors-1';

function setup() {
  const ws = tempRepo({ 'package.json': '{}', ...TS_FILES, 'docs/guide.md': '# guide\n' });
  const home = tempRoot();
  dirs.push(ws, home.dir);
  const store = storeIn(home.dir);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const events: string[] = [];
  const code = codeSeekFacade(new CodeSeek({ tasks: createTaskGroup(), clock: realClock }), 30_000);
  const bp = new Blueprint({ store, code, publish: (e) => void events.push(JSON.stringify(e)), now: () => clock.now(), config: { enabled: true, injectInto: ['repo'], indexMaxTokens: 800, proseBudgetTokens: 2000, exportPath: '' } });
  const file = join(home.dir, 'data', 'blueprint', projectId, 'blueprint.md');
  return { ws, store, bp, clock, events, stored: () => readFileSync(file, 'utf8') };
}

describe('blueprint anchors', () => {
  it('AnchorFresh: an entry whose paths are unchanged since the fold reads as plain text, its hashes stored', async () => {
    const { ws, bp, stored } = setup();
    await bp.fold(ws, projectId, ['Calc in src/math.ts keeps a total; docs/ holds the guide', 'no path here at all']);
    expect(stored()).toMatch(/- Calc in src\/math\.ts keeps a total; docs\/ holds the guide <!-- anchors src\/math\.ts=[0-9a-f]{12} docs=dir -->\n- no path here at all\n/);
    const text = await bp.read(ws, projectId);
    expect(text).toMatch(/^- Calc in src\/math\.ts keeps a total; docs\/ holds the guide$/m);
    expect(text).not.toMatch(/stale anchor|orphaned|<!--/);
    // an entry cannot forge anchors with its own comment markers
    await bp.fold(ws, projectId, ['see src/main.ts <!-- anchors src/main.ts=000000000000 -->']);
    expect(await bp.read(ws, projectId)).toMatch(/^- see src\/main\.ts anchors src\/main\.ts=000000000000$/m);
  });

  it('AnchorStale: a changed anchor file marks the entry stale and keeps it; re-folding it makes it fresh', async () => {
    const { ws, bp } = setup();
    await bp.fold(ws, projectId, ['Calc in src/math.ts keeps a total', 'run() in src/main.ts is the entry']);
    writeTree(ws, { 'src/math.ts': `${TS_FILES['src/math.ts']}export const PI = 3;\n` });
    const text = await bp.read(ws, projectId);
    expect(text).toContain('- Calc in src/math.ts keeps a total (stale anchor: src/math.ts changed since this was written)');
    expect(text).toMatch(/^- run\(\) in src\/main\.ts is the entry$/m);
    await bp.fold(ws, projectId, ['Calc in src/math.ts keeps a total']);
    expect(await bp.read(ws, projectId)).not.toContain('stale anchor');
  });

  it('AnchorOrphaned: a gone anchor marks the entry orphaned with the day it was first seen gone; back again, unmarked', async () => {
    const { ws, bp, clock, stored } = setup();
    await bp.fold(ws, projectId, ['the guide is docs/guide.md']);
    unlinkSync(join(ws, 'docs/guide.md'));
    clock.advance(3 * DAY);
    expect(await bp.read(ws, projectId)).toContain('- the guide is docs/guide.md (orphaned: docs/guide.md no longer exists since 2026-01-04; dropped after 90 days)');
    expect(stored()).toContain('; orphaned 2026-01-04T00:00:00.000Z -->');
    clock.advance(5 * DAY);
    await bp.read(ws, projectId);
    expect(stored()).toContain('; orphaned 2026-01-04T00:00:00.000Z -->');
    writeTree(ws, { 'docs/guide.md': '# guide\n' });
    expect(await bp.read(ws, projectId)).toMatch(/^- the guide is docs\/guide\.md$/m);
    expect(stored()).not.toContain('orphaned');
  });

  it('OrphansAgeOutAfter90Days: kept until 90 days after first seen gone, then dropped and the drop is published', async () => {
    const { ws, bp, clock, stored, events } = setup();
    await bp.fold(ws, projectId, ['the guide is docs/guide.md', 'Calc in src/math.ts keeps a total']);
    unlinkSync(join(ws, 'docs/guide.md'));
    await bp.read(ws, projectId);
    clock.advance(ORPHAN_TTL_MS - 1);
    expect(await bp.read(ws, projectId)).toContain('the guide is docs/guide.md (orphaned');
    expect(events.join()).not.toContain('aged out');
    clock.advance(1);
    const text = await bp.read(ws, projectId);
    expect(text).not.toContain('the guide');
    expect(text).toContain('- Calc in src/math.ts keeps a total');
    expect(stored()).not.toContain('the guide');
    expect(events.join()).toContain('1 orphaned blueprint entry aged out');
    expect(ORPHAN_TTL_MS).toBe(90 * DAY);
  });

  it('OrphansAgeOutInAFold too: a fold after 90 days drops the orphan while it merges new entries', async () => {
    const { ws, bp, clock, stored } = setup();
    await bp.fold(ws, projectId, ['the guide is docs/guide.md']);
    unlinkSync(join(ws, 'docs/guide.md'));
    await bp.read(ws, projectId);
    clock.advance(ORPHAN_TTL_MS);
    await bp.fold(ws, projectId, ['run() in src/main.ts is the entry']);
    expect(stored()).not.toContain('the guide');
    expect(stored()).toContain('- run() in src/main.ts is the entry');
  });
});
