// The code index on hand-checked repositories (TS, Python, Go), on generated ones and on this repository itself.
import { execFileSync } from 'node:child_process';
import { rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callees, callers } from '../../src/actors/codeseek/answers.js';
import { CodeIndex, MAX_FILE_BYTES } from '../../src/actors/codeseek/code-index.js';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { realClock } from '../../src/runtime/clock.js';
import { GO_FILES, PY_FILES, TS_FILES, tempRepo, writeTree } from './fixtures.js';

const made: string[] = [];
function repo(files: Record<string, string>, git = true): string {
  const r = tempRepo(files, git);
  made.push(r);
  return r;
}
afterAll(() => made.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** Callers as `path:line caller` and callees as sorted names, from the index's parsed facts. */
function callersOf(ix: CodeIndex, name: string): string[] {
  return ix.callsTo(name).map((c) => `${c.path}:${c.call.line} ${c.caller?.name ?? '<top>'}`).sort();
}
function calleesOf(ix: CodeIndex, name: string): string[] {
  const [d] = ix.declsNamed(name);
  if (!d) return [];
  const calls = ix.file(d.path)?.facts.calls ?? [];
  return [...new Set(calls.filter((c) => c.caller === d.index).map((c) => c.callee))].sort();
}

describe('callers and callees match the hand-checked fixtures', () => {
  it('TypeScript: comments and strings never count, methods and top level are attributed', async () => {
    const ix = new CodeIndex(repo(TS_FILES));
    await ix.refresh();
    expect(callersOf(ix, 'add')).toEqual(['src/main.ts:6 run', 'src/math.ts:10 plus', 'src/math.ts:5 twice']);
    expect(callersOf(ix, 'run')).toEqual(['src/main.ts:8 <top>']);
    expect(calleesOf(ix, 'run')).toEqual(['Calc', 'add', 'plus', 'twice']);
    expect(calleesOf(ix, 'twice')).toEqual(['add']);
    const plus = ix.declsNamed('plus')[0];
    expect(plus?.decl).toMatchObject({ kind: 'method', line: 9, endLine: 12, signature: 'plus(n: number): this' });
    expect(ix.file('src/main.ts')?.facts.imports).toEqual([{ spec: './math.js', line: 1, names: [['add', 'add'], ['twice', 'twice'], ['Calc', 'Calc']] }]);
  });

  it('Python: calls inside comprehensions belong to their method, a method is under its class', async () => {
    const ix = new CodeIndex(repo(PY_FILES));
    await ix.refresh();
    expect(callersOf(ix, 'norm')).toEqual(['app.py:6 main', 'pkg/util.py:8 walk']);
    expect(callersOf(ix, 'main')).toEqual(['app.py:9 <top>']);
    expect(calleesOf(ix, 'main')).toEqual(['Walker', 'norm', 'print', 'walk']);
    expect(calleesOf(ix, 'walk')).toEqual(['listdir', 'norm']);
    const walk = ix.declsNamed('walk')[0];
    expect(walk?.decl).toMatchObject({ kind: 'method', line: 7, endLine: 8, signature: 'def walk(self, root):' });
    expect(ix.file('pkg/util.py')?.facts.decls[walk?.decl.parent ?? -1]?.name).toBe('Walker');
  });

  it('Go: methods, functions and selector calls', async () => {
    const ix = new CodeIndex(repo(GO_FILES));
    await ix.refresh();
    expect(callersOf(ix, 'format')).toEqual(['main.go:11 Greet', 'main.go:20 main']);
    expect(calleesOf(ix, 'main')).toEqual(['Greet', 'Println', 'format']);
    expect(calleesOf(ix, 'format')).toEqual(['ToUpper']);
    expect(ix.declsNamed('Greeter')[0]?.decl).toMatchObject({ kind: 'struct', line: 8, signature: 'type Greeter struct' });
    expect(ix.file('main.go')?.facts.imports.map((i) => i.spec)).toEqual(['fmt', 'strings']);
  });
});

describe('the index is incremental and respects .gitignore', () => {
  it('a one-file change re-parses that file only; a removed file leaves the index', async () => {
    const root = repo(TS_FILES);
    const ix = new CodeIndex(root);
    expect((await ix.refresh()).parsed).toBe(2);
    writeFileSync(join(root, 'src/math.ts'), `${TS_FILES['src/math.ts']}export function extra(): number { return twice(1); }\n`);
    const r = await ix.refresh();
    expect(r).toMatchObject({ parsed: 1, removed: 0 });
    expect(callersOf(ix, 'twice')).toContain('src/math.ts:14 extra');
    // the maps were patched for the one file, not rebuilt: they answer as a fresh index of the same files does
    const fresh = new CodeIndex(root);
    await fresh.refresh();
    for (const name of ['add', 'twice', 'extra', 'run']) {
      expect(callers(ix, name), name).toBe(callers(fresh, name));
      expect(callees(ix, name), name).toBe(callees(fresh, name));
    }
    rmSync(join(root, 'src/main.ts'));
    expect((await ix.refresh()).removed).toBe(1);
    expect(callersOf(ix, 'run')).toEqual([]);
  });

  it('in a git repository and outside one, ignored files and dependencies are not indexed', async () => {
    const files = { ...TS_FILES, '.gitignore': 'gen/\n*.gen.ts\n', 'gen/out.ts': 'export function hidden() {}\n', 'src/x.gen.ts': 'export function hidden2() {}\n', 'node_modules/p/index.js': 'function dep() {}\n' };
    for (const git of [true, false]) {
      const ix = new CodeIndex(repo(files, git));
      await ix.refresh();
      expect([...ix.entries()].map((e) => e.path).sort(), `git=${git}`).toEqual(['src/main.ts', 'src/math.ts']);
    }
  });

  it('a symlink, a FIFO and a file over 1 MB are never read (a new file is opened without following links or blocking)', async () => {
    // in git, which lists a symlink as a file (a walk never sees it)
    const r = repo(TS_FILES);
    const outside = repo({ 'secret.ts': 'export function leaked() {}\n' }, false);
    symlinkSync(join(outside, 'secret.ts'), join(r, 'src/link.ts'));
    execFileSync('mkfifo', [join(r, 'src/pipe.ts')]);
    writeFileSync(join(r, 'src/big.ts'), `export function big() {}\n${'//'.padEnd(MAX_FILE_BYTES, 'x')}\n`);
    const ix = new CodeIndex(r);
    const report = await ix.refresh();
    expect([...ix.entries()].map((e) => e.path).sort()).toEqual(['src/main.ts', 'src/math.ts']);
    expect(ix.declsNamed('leaked')).toEqual([]);
    expect(report.parsed).toBe(2);
  });
  it('a file larger than the read buffer is read whole, its multi-byte text intact (the thread reuses one buffer)', async () => {
    // 300 KB of comment between two declarations, with a 3-byte character on every line
    const filler = Array.from({ length: 10_000 }, (_, i) => `// €${i} ${'x'.repeat(16)}`).join('\n');
    const r = repo({ 'src/small.ts': 'export function tiny() { return 1; }\n', 'src/wide.ts': `export function head() {}\n${filler}\nexport function tail() { return head(); }\n` });
    const ix = new CodeIndex(r);
    await ix.refresh();
    const [tail] = ix.declsNamed('tail');
    expect(tail?.decl.line).toBe(10_002);
    expect(callersOf(ix, 'head')).toEqual(['src/wide.ts:10002 tail']);
    expect(ix.declsNamed('tiny')).toHaveLength(1);
  });
});

describe('CodeSeek answers', () => {
  it('a question while the first build runs gets what is indexed and is told the rest is still building', async () => {
    const root = repo(TS_FILES);
    // the wait for the build is over at once: the answer cannot wait for the index
    const now = { now: () => Date.now(), setTimeout: (fn: () => void) => (queueMicrotask(fn), { cancel: () => undefined }) };
    const tasks = createTaskGroup();
    const cs = new CodeSeek({ tasks, clock: now });
    const first = await cs.ask(root, { op: 'callers', name: 'add' });
    expect(first.status.building).toBe(true);
    expect(first.text).toMatch(/index still building: \d+ of \d+ files indexed/);
    await cs.settle(root);
    const later = await cs.ask(root, { op: 'callers', name: 'add' });
    expect(later.status.building).toBe(false);
    expect(later.text).toContain('3 call site(s) in 3 caller(s)');
    expect(await tasks.drain(5_000)).toEqual([]);
  });

  it('skeleton, snippet (re-read after an edit), search and call graph', async () => {
    const root = repo(TS_FILES);
    const cs = new CodeSeek({ tasks: createTaskGroup(), clock: realClock, freshMs: 0 });
    await cs.settle(root);
    const sk = (await cs.ask(root, { op: 'skeleton', paths: ['src/math.ts'] })).text;
    expect(sk).toContain('7-13 class Calc');
    expect(sk).toContain('    9-12 method plus(n: number): this');
    expect((await cs.ask(root, { op: 'search', query: 'twice' })).text.split('\n')[0]).toBe('src/math.ts:4-6 function twice(x: number): number');
    expect((await cs.ask(root, { op: 'search', query: 'calc plus' })).text).toContain('src/math.ts:9-12 method plus');
    writeTree(root, { 'src/math.ts': `// moved down\n${TS_FILES['src/math.ts']}` });
    const snip = (await cs.ask(root, { op: 'snippet', name: 'add', path: 'src/math.ts' })).text;
    expect(snip).toContain('src/math.ts:2-4 function add');
    expect(snip).toContain('     3\t  return a + b;');
    const g = (await cs.ask(root, { op: 'callgraph', name: 'run', depth: 2 })).text;
    expect(g).toMatch(/^ {2}twice \[src\/math\.ts:5-7\]\n {4}add \[src\/math\.ts:2-4\]/m);
    const up = (await cs.ask(root, { op: 'callgraph', name: 'add', depth: 2, direction: 'callers' })).text;
    expect(up).toContain('    run [src/main.ts:4-7]');
  });

  it('on this repository: the callers of runSafeGit include the store\'s git identity reader', async () => {
    const cs = new CodeSeek({ tasks: createTaskGroup(), clock: realClock });
    const root = join(import.meta.dirname, '..', '..');
    const report = await cs.settle(root);
    expect(report?.files).toBeGreaterThan(300);
    const text = (await cs.ask(root, { op: 'callers', name: 'runSafeGit' })).text;
    expect(text).toContain('src/runtime/safe-git.ts:');
    expect(text).toMatch(/src\/store\/rollout\/identity\.ts:\d+-\d+ function readGitIdentity/);
    expect(statSync(join(root, 'src/runtime/safe-git.ts')).isFile()).toBe(true);
  }, 120_000);
});
