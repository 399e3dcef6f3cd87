// The one-file refresh with directory watches (watch.ts): only the files the watches named are stat'ed, and after
// every kind of change the index holds what a fresh index of the same tree holds.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callers } from '../../src/actors/codeseek/answers.js';
import { CodeIndex } from '../../src/actors/codeseek/code-index.js';
import { TS_FILES, tempRepo } from './fixtures.js';

const made: string[] = [];
const open: CodeIndex[] = [];
afterAll(() => {
  open.forEach((ix) => ix.close());
  made.forEach((r) => rmSync(r, { recursive: true, force: true }));
});

const FILES = {
  ...TS_FILES,
  '.gitignore': 'gen/\n',
  'src/deep/a/b.ts': "import { add } from '../../math.js';\nexport function deep(): number { return add(1, 2); }\n",
  'lib/x.ts': 'export function lx(): number { return 1; }\n',
};

/** Paths and content hashes, as the index holds them. */
function held(ix: CodeIndex): string[] {
  return [...ix.entries()].map((e) => `${e.path} ${e.hash}`).sort();
}

/** The watched index holds what a fresh index of the same tree holds, and answers as it does. */
async function sameAsFresh(ix: CodeIndex, root: string): Promise<void> {
  const fresh = new CodeIndex(root);
  await fresh.refresh();
  expect(held(ix)).toEqual(held(fresh));
  for (const name of ['add', 'deep', 'lx', 'late', 'twice']) expect(callers(ix, name), name).toBe(callers(fresh, name));
}

describe('a refresh with directory watches stats only the files that changed', () => {
  const root = tempRepo(FILES);
  made.push(root);
  const ix = new CodeIndex(root, Date.now, { watch: true });
  open.push(ix);
  const known = (): number => [...ix.entries()].length;

  it('after the build, an unchanged tree stats nothing', async () => {
    expect((await ix.refresh()).parsed).toBe(4);
    expect(await ix.refresh()).toMatchObject({ parsed: 0, checked: 0, removed: 0 });
  });

  it('a content edit (the directory mtime does not move) is seen by stat-ing that file only', async () => {
    writeFileSync(join(root, 'src/math.ts'), `${TS_FILES['src/math.ts']}export function late(): number { return twice(2); }\n`);
    expect(await ix.refresh()).toMatchObject({ parsed: 1, checked: 1 });
    await sameAsFresh(ix, root);
  });

  it('an edit in a nested directory', async () => {
    writeFileSync(join(root, 'src/deep/a/b.ts'), "import { add } from '../../math.js';\nexport function deep(): number { return add(add(1, 2), 3); }\n");
    expect(await ix.refresh()).toMatchObject({ parsed: 1, checked: 1 });
    await sameAsFresh(ix, root);
  });

  it('an added file, then one in new nested directories, then an edit of it (its directories are watched since)', async () => {
    writeFileSync(join(root, 'lib/new.ts'), "import { lx } from './x.js';\nexport const n = lx();\n");
    expect(await ix.refresh()).toMatchObject({ parsed: 1, checked: 0 });
    mkdirSync(join(root, 'lib/n1/n2'), { recursive: true });
    writeFileSync(join(root, 'lib/n1/n2/c.ts'), 'export function c(): number { return 1; }\n');
    expect(await ix.refresh()).toMatchObject({ parsed: 1 });
    writeFileSync(join(root, 'lib/n1/n2/c.ts'), "import { lx } from '../../x.js';\nexport function c(): number { return lx(); }\n");
    expect(await ix.refresh()).toMatchObject({ parsed: 1, checked: 1 });
    await sameAsFresh(ix, root);
  });

  it('a deleted file and a renamed file', async () => {
    rmSync(join(root, 'lib/new.ts'));
    expect(await ix.refresh()).toMatchObject({ removed: 1, parsed: 0 });
    renameSync(join(root, 'src/main.ts'), join(root, 'src/entry.ts'));
    const r = await ix.refresh();
    expect(r).toMatchObject({ removed: 1, parsed: 0, hashed: 1 }); // the same content under a new name: not parsed
    expect(r.checked).toBeLessThanOrEqual(1);
    await sameAsFresh(ix, root);
  });

  it('a gitignored file is never indexed; un-ignored, it is, and its edits are seen', async () => {
    mkdirSync(join(root, 'gen'));
    writeFileSync(join(root, 'gen/out.ts'), 'export function hidden(): number { return 0; }\n');
    expect(await ix.refresh()).toMatchObject({ parsed: 0 });
    expect(ix.declsNamed('hidden')).toEqual([]);
    writeFileSync(join(root, '.gitignore'), '');
    expect(await ix.refresh()).toMatchObject({ parsed: 1 });
    writeFileSync(join(root, 'gen/out.ts'), "import { lx } from '../lib/x.js';\nexport function hidden(): number { return lx(); }\n");
    expect(await ix.refresh()).toMatchObject({ parsed: 1, checked: 1 });
    await sameAsFresh(ix, root);
  });

  it('a renamed directory: the watches are not trusted, every known file is stat\'ed once and watched afresh', async () => {
    const before = known();
    renameSync(join(root, 'src/deep'), join(root, 'src/deeper'));
    const r = await ix.refresh();
    expect(r.checked).toBe(before);
    await sameAsFresh(ix, root);
    // the watch of the old name followed the inode: an edit under the new name is still seen, by a watch of its own
    writeFileSync(join(root, 'src/deeper/a/b.ts'), "export function deep(): number { return 4; }\n");
    expect(await ix.refresh()).toMatchObject({ parsed: 1, checked: 1 });
    await sameAsFresh(ix, root);
  });
});

it('without watches every refresh stats every known file (the engine makes its indexes with watches)', async () => {
  const root = tempRepo(FILES);
  made.push(root);
  const ix = new CodeIndex(root);
  await ix.refresh();
  writeFileSync(join(root, 'lib/x.ts'), 'export function lx(): number { return 2; }\n');
  expect(await ix.refresh()).toMatchObject({ parsed: 1, checked: 4 });
});
