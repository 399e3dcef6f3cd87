// The blueprint, one named test per seeds' rule (§6.4, §6.7, pitfalls 42-43), on real files, a real store and a real
// code index.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { Blueprint } from '../../src/actors/blueprint/blueprint.js';
import { checkClaims } from '../../src/actors/blueprint/claims.js';
import { codeSeekFacade } from '../../src/actors/codeseek/codeseek-actor.js';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import type { YagentConfig } from '../../src/runtime/config/types.js';
import { ManualClock, realClock } from '../../src/runtime/clock.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { blueprintRootRefusal } from '../../src/store/knowledge.js';
import type { StoreService } from '../../src/store/service.js';
import { CONFIG_TEMPLATE } from '../../src/runtime/config/template.js';
import { cfg } from '../config/helpers.js';
import { storeIn, tempRoot } from '../store/helpers.js';
import { TS_FILES, tempRepo, writeTree } from '../codeseek/fixtures.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const clock = new ManualClock(Date.UTC(2026, 0, 1));
const CONFIG: YagentConfig['blueprint'] = { enabled: true, injectInto: ['director', 'repo'], indexMaxTokens: 800, proseBudgetTokens: 2000, exportPath: '' };

function setup(files: Record<string, string> = { 'package.json': '{"name":"x","main":"src/main.ts"}\n', ...TS_FILES }, config = CONFIG): { ws: string; store: StoreService; bp: Blueprint; home: string; events: string[] } {
  const ws = tempRepo(files);
  const home = tempRoot();
  dirs.push(ws, home.dir);
  const store = storeIn(home.dir);
  const code = codeSeekFacade(new CodeSeek({ tasks: createTaskGroup(), clock: realClock }), 30_000);
  const events: string[] = [];
  const bp = new Blueprint({ store, code, config, publish: (e) => void events.push(JSON.stringify(e)), now: () => clock.now() });
  return { ws, store, bp, home: home.dir, events };
}

const projectId = 'proj-1';

describe('blueprint rules', () => {
  it('DerivedIsNeverPersisted: reading and injecting write nothing; a fold persists the prose only', async () => {
    const { ws, bp, home } = setup();
    const msgs = await bp.injection('director', ws, projectId);
    expect(msgs[0]?.content).toContain('- src (2, typescript)');
    expect(await bp.read(ws, projectId)).toContain('No prose yet');
    expect(existsSync(join(home, 'data', 'blueprint'))).toBe(false);
    expect(await bp.fold(ws, projectId, ['src/math.ts holds the arithmetic helpers'])).toMatch(/1 of 1 entries kept, revision 1/);
    const file = readFileSync(join(home, 'data', 'blueprint', projectId, 'blueprint.md'), 'utf8');
    expect(file).toContain('- src/math.ts holds the arithmetic helpers');
    expect(file).not.toContain('Modules');
  });

  it('ProseSurvivesARestart: a new store and a new index read what a Repo fold wrote', async () => {
    const { ws, bp, home } = setup();
    await bp.fold(ws, projectId, ['Calc in src/math.ts accumulates a total']);
    const again = new Blueprint({ store: storeIn(home), code: codeSeekFacade(new CodeSeek({ tasks: createTaskGroup(), clock: realClock }), 30_000), config: CONFIG, publish: () => undefined, now: () => clock.now() });
    const text = await again.read(ws, projectId);
    expect(text).toContain('- Calc in src/math.ts accumulates a total');
    expect(text).not.toContain('STALE');
  });

  it('RollingRevisionsKeepFive: every fold moves the old document to revisions/, the newest five are kept', async () => {
    const { ws, bp, home } = setup();
    for (let i = 1; i <= 8; i++) expect(await bp.fold(ws, projectId, [`fact number ${i}`])).toContain(`revision ${i}`);
    const revs = readdirSync(join(home, 'data', 'blueprint', projectId, 'revisions')).sort();
    expect(revs).toEqual(['000003.md', '000004.md', '000005.md', '000006.md', '000007.md']);
  });

  it('CompareAndSwapAcrossWriters: a stale revision is refused; concurrent folds both land', async () => {
    const { ws, bp, store } = setup();
    await bp.fold(ws, projectId, ['first']);
    const lost = await store.writeBlueprint({ projectId, workspace: ws, expectedRevision: 0, fingerprint: 'x', prose: '- clobber\n' });
    expect(lost).toMatchObject({ ok: false, reason: 'conflict', revision: 1 });
    await Promise.all([bp.fold(ws, projectId, ['from writer A']), bp.fold(ws, projectId, ['from writer B'])]);
    const doc = await store.readBlueprint(projectId);
    expect(doc?.prose).toContain('- from writer A');
    expect(doc?.prose).toContain('- from writer B');
    expect(doc?.prose).toContain('- first');
    expect(doc?.revision).toBe(3);
  });

  it('RootGuard: $HOME, / and a directory with neither .git nor a manifest are refused', async () => {
    const home = tempRoot();
    dirs.push(home.dir);
    mkdirSync(join(home.dir, 'plain'));
    expect(await blueprintRootRefusal('/', home.dir)).toMatch(/root/);
    expect(await blueprintRootRefusal(home.dir, home.dir)).toMatch(/home directory/);
    expect(await blueprintRootRefusal(join(home.dir, 'plain'), home.dir)).toMatch(/neither a git repository nor/);
    writeFileSync(join(home.dir, 'plain', 'go.mod'), 'module x\n');
    expect(await blueprintRootRefusal(join(home.dir, 'plain'), home.dir)).toBeNull();
    const store = storeIn(tempRoot().dir);
    const r = await store.writeBlueprint({ projectId, workspace: home.dir, expectedRevision: 0, fingerprint: '', prose: '- x\n', home: home.dir });
    expect(r).toMatchObject({ ok: false, reason: 'refused' });
  });

  it('StaleButKept and StaleIsSticky: a structural change marks the prose stale and keeps its text, reverting keeps it stale', async () => {
    const { ws, bp, store } = setup();
    await bp.fold(ws, projectId, ['run() in src/main.ts is the entry']);
    expect((await store.readBlueprint(projectId))?.stale).toBe(false);
    writeTree(ws, { 'lib/extra.ts': "import { add } from '../src/math.js';\nexport const three = add(1, 2);\n" });
    const text = await bp.read(ws, projectId);
    expect(text).toContain('STALE');
    expect(text).toContain('- run() in src/main.ts is the entry');
    const stale = await store.readBlueprint(projectId);
    expect(stale).toMatchObject({ stale: true });
    expect(stale?.prose).toMatch(/^- run\(\) in src\/main\.ts is the entry <!-- anchors src\/main\.ts=[0-9a-f]{12} -->\n$/);
    rmSync(join(ws, 'lib'), { recursive: true });
    expect(await bp.read(ws, projectId)).toContain('STALE');
    // a content-only change is no structural change: a fresh fold is not marked stale by it
    await bp.fold(ws, projectId, ['refolded']);
    writeTree(ws, { 'src/math.ts': `${TS_FILES['src/math.ts']}// a comment\n` });
    expect(await bp.read(ws, projectId)).not.toContain('STALE');
  });

  it('PathClaimsChecked (pitfall 42): a missing path drops its entry; ordinary prose of the same shape is kept', () => {
    const ws = tempRepo({ 'package.json': '{}', ...TS_FILES, 'test/a.test.ts': '' });
    dirs.push(ws);
    const prose = [
      'Reads are read/write safe and the transport is TCP/IP over client/server sockets',
      '工具分读/写/执行三类，actors/agents 下的代码不直接写盘',
      'the test/build loop runs on every change, see e.g. the and/or rule',
      'src/math.ts:4 declares twice; src/ holds the code and package.json names it',
    ];
    const bad = ['the parser lives in src/parser/grammar.ts', 'see docs/ARCHITECTURE.md for the layers'];
    const r = checkClaims(ws, [...prose, ...bad]);
    expect(r.kept).toEqual(prose);
    expect(r.dropped.map((d) => d.reason)).toEqual(['no such path: src/parser/grammar.ts', 'no such path: docs/ARCHITECTURE.md']);
    expect(checkClaims(ws, ['src/../../etc/passwd.txt is ours']).dropped).toHaveLength(1);
  });

  it('FoldAccountIsDistinguishable (pitfall 43): every outcome says what happened, drops name their reason', async () => {
    const { ws, bp } = setup();
    expect(await bp.fold(ws, projectId, [])).toBe('blueprint: no entries submitted (nothing written)');
    const a = await bp.fold(ws, projectId, ['ok entry in src/main.ts', 'wrong entry in src/none.ts']);
    expect(a).toMatch(/^blueprint: 1 of 2 entries kept, revision 1\n {2}dropped "wrong entry in src\/none\.ts": no such path: src\/none\.ts$/);
    expect(await bp.fold(ws, projectId, ['only src/none.ts'])).toMatch(/^blueprint: 0 of 1 entries kept \(nothing written\)/);
  });

  it('InjectionBudgetsAndRoles: inject_into decides who gets it; index_max_tokens and prose_budget_tokens bound it', async () => {
    const many: Record<string, string> = { 'package.json': '{}' };
    for (let i = 0; i < 60; i++) many[`mod${i}/file.ts`] = `export const v${i} = ${i};\n`;
    const small = { ...CONFIG, injectInto: ['repo'], indexMaxTokens: 60, proseBudgetTokens: 60 };
    const { ws, bp } = setup(many, small);
    expect(await bp.injection('director', ws, projectId)).toEqual([]);
    for (let i = 0; i < 10; i++) await bp.fold(ws, projectId, [`a durable fact about module mod${i} and its single file`]);
    const [m] = await bp.injection('repo', ws, projectId);
    const text = String(m?.content);
    expect(text).toMatch(/\[\d+ smaller modules not shown: read_blueprint lists them all\]/);
    expect(text).toMatch(/\[\d+ older entries not shown: read_blueprint\]/);
    expect(text).toContain('mod9 and its single file');
    expect(text.length).toBeLessThan((60 + 60) * 4 + 200);
  });

  it('DefaultsAreOneSource (seeds §7): the template\'s [blueprint] values are the loaded defaults', () => {
    const t = (parse(CONFIG_TEMPLATE) as { blueprint: Record<string, unknown> }).blueprint;
    const d = cfg().blueprint;
    expect({ enabled: d.enabled, injectInto: d.injectInto, indexMaxTokens: d.indexMaxTokens, proseBudgetTokens: d.proseBudgetTokens, exportPath: d.exportPath })
      .toEqual({ enabled: t.enable, injectInto: t.inject_into, indexMaxTokens: t.index_max_tokens, proseBudgetTokens: t.prose_budget_tokens, exportPath: t.export_path ?? '' });
  });

  it('KillSwitch: with the blueprint off nothing is injected, read says so and a fold writes nothing', async () => {
    const { ws, bp, home } = setup(undefined, { ...CONFIG, enabled: false });
    expect(await bp.injection('director', ws, projectId)).toEqual([]);
    expect(await bp.read(ws, projectId)).toMatch(/off/);
    expect(await bp.fold(ws, projectId, ['x'])).toMatch(/not written \(the blueprint is off\)/);
    expect(existsSync(join(home, 'data', 'blueprint'))).toBe(false);
  });
});
