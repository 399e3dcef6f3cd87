// Callers and callees resolved through each file's imports (TS/JS specifiers and re-exports, Python `from x import y`
// and `import x as y`, Go package qualifiers): a same-named function in an unrelated module is never reported, and a
// call the syntax cannot resolve (a method on an object other than `this`/`self`) is listed with an "unresolved" marker.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { callees, callers, callgraph } from '../../src/actors/codeseek/answers.js';
import { CodeIndex } from '../../src/actors/codeseek/code-index.js';
import { GO_SHADOW, GO_TYPED, PY_SHADOW, PY_TYPED, TS_SHADOW, TS_TYPED, tempRepo } from './fixtures.js';

const made: string[] = [];
afterAll(() => made.forEach((r) => rmSync(r, { recursive: true, force: true })));
async function index(files: Record<string, string>): Promise<CodeIndex> {
  const root = tempRepo(files);
  made.push(root);
  const ix = new CodeIndex(root);
  await ix.refresh();
  return ix;
}

describe('calls resolve through imports', () => {
  it('TypeScript: named, namespace, aliased, re-exported and package imports decide the target', async () => {
    const ix = await index(TS_SHADOW);
    const math = callers(ix, 'add', 'src/math.ts');
    expect(math).toContain('5 call site(s) in 4 caller(s) (1 unresolved: a method call on an object or a name not imported, so matched by name only):');
    expect(math).toContain('  src/main.ts:4-7 function run — calls at line 6');
    expect(math).toContain('  src/math.ts:9-12 method plus — calls at line 10');
    expect(math).toContain('  src/math.ts:4-6 function twice — calls at line 5');
    expect(math).toContain('  src/use.ts:5-11 function use — calls at line 6; unresolved call at line 7');
    expect(math).toContain('(2 call(s) of another "add" — imported from elsewhere or a package — not counted)');
    const other = callers(ix, 'add', 'src/other.ts');
    expect(other).toContain('  src/use.ts:5-11 function use — calls at line 10; unresolved call at line 7');
    expect(other).not.toContain('src/main.ts');
    expect(callers(ix, 'twice', 'src/math.ts')).toContain('  src/use.ts:5-11 function use — calls at line 9');
    const out = callees(ix, 'use');
    expect(out).toContain('  add (line 6) → src/math.ts:1-3');
    expect(out).toContain('  add (line 7) → unresolved, by name: src/math.ts:1-3, src/other.ts:1-3');
    expect(out).toContain('  plusAll (line 8) → outside the workspace ("some-package")');
    expect(out).toContain('  double (line 9) → src/math.ts:4-6');
    expect(out).toContain('  add (line 10) → src/other.ts:1-3');
    expect(callees(ix, 'run')).toContain('  plus (line 5) → unresolved, by name: src/math.ts:9-12');
    // `this.m()` reaches the method of the enclosing class, not a same-named one of another class
    expect(callees(ix, 'area')).toContain('  size (line 6) → src/shapes.ts:2-4');
    expect(callgraph(ix, 'size', 1, 'callers', 'src/shapes.ts')).toMatch(/^ {2}area \[src\/shapes\.ts:5-7\]$/m);
  });

  it('Python: from-imports, module aliases and the standard library', async () => {
    const ix = await index(PY_SHADOW);
    const pkg = callers(ix, 'norm', 'pkg/util.py');
    expect(pkg).toContain('3 call site(s) in 3 caller(s):');
    expect(pkg).toContain('  app.py:3-6 function main — calls at line 6');
    expect(pkg).toContain('  pkg/util.py:7-8 method walk — calls at line 8');
    expect(pkg).toContain('  tool.py:4-7 function go — calls at line 6');
    const other = callers(ix, 'norm', 'other/util.py');
    expect(other).toContain('1 call site(s) in 1 caller(s):\n  tool.py:4-7 function go — calls at line 5');
    const out = callees(ix, 'go');
    expect(out).toContain('  norm (line 5) → other/util.py:1-2');
    expect(out).toContain('  norm (line 6) → pkg/util.py:3-4');
    expect(out).toContain('  join (line 7) → outside the workspace ("os.path")');
    expect(callees(ix, 'walk')).toContain('  listdir (line 8) → outside the workspace ("os")');
  });

  it('Go: the same package by directory, another through its (aliased) package qualifier', async () => {
    const ix = await index(GO_SHADOW);
    const main = callers(ix, 'format', 'main.go');
    expect(main).toContain('2 call site(s) in 2 caller(s):');
    expect(main).not.toContain('text/text.go:7');
    expect(callers(ix, 'format', 'text/text.go')).toContain('1 call site(s) in 1 caller(s):\n  text/text.go:7-9 function Use — calls at line 8');
    expect(callers(ix, 'Use')).toContain('  cmd/run.go:7-9 function Run — calls at line 8');
    const m = callees(ix, 'main');
    expect(m).toContain('  Greet (line 20) → main.go:10-12'); // g := &Greeter{…}
    expect(m).toContain('  Println (line 20) → outside the workspace ("fmt")');
    expect(m).toContain('  format (line 20) → main.go:14-16');
    expect(callgraph(ix, 'Run', 2)).toMatch(/^ {2}Use \[text\/text\.go:7-9\]\n {4}format \[text\/text\.go:3-5\]$/m);
  });
});

describe('method calls on an object of stated type resolve to that class\'s own method', () => {
  const UNRESOLVED = 'unresolved: a method call on an object or a name not imported, so matched by name only';
  it('TypeScript: a field, a constructor parameter property, a typed parameter and `new C()`; inherited stays unresolved', async () => {
    const ix = await index(TS_TYPED);
    const store = callers(ix, 'get', 'src/store.ts');
    expect(store).toContain(`6 call site(s) in 5 caller(s) (4 ${UNRESOLVED}):`);
    expect(store).toContain('  src/app.ts:27-30 function twoCallbacks — unresolved call at line 28, 29');
    expect(store).toContain('  src/app.ts:8-10 method read — calls at line 9');
    expect(store).toContain('  src/app.ts:12-14 function viaParam — calls at line 13');
    expect(store).toContain('  src/app.ts:19-21 function unknown — unresolved call at line 20');
    expect(store).toContain('  src/app.ts:23-26 function viaSub — unresolved call at line 25');
    expect(store).toContain('(2 call(s) of another "get" — imported from elsewhere or a package — not counted)');
    const cache = callers(ix, 'get', 'src/cache.ts');
    expect(cache).toContain('  src/app.ts:8-10 method read — calls at line 9');
    expect(cache).toContain('  src/app.ts:15-18 function viaNew — calls at line 17');
    expect(cache).not.toContain('viaParam');
    const read = callees(ix, 'read');
    expect(read).toContain('  get (line 9) → src/store.ts:2-4');
    expect(read).toContain('  get (line 9) → src/cache.ts:2-4');
  });

  it('Python: `self.f = C()` and `x = C()` and a typed parameter', async () => {
    const ix = await index(PY_TYPED);
    const store = callers(ix, 'get', 'pkg/store.py');
    expect(store).toContain('2 call site(s) in 2 caller(s):\n  app.py:10-12 function via_new — calls at line 12\n  app.py:6-7 method read — calls at line 7');
    expect(store).toContain('(1 call(s) of another "get"');
    expect(callers(ix, 'get', 'pkg/cache.py')).toContain('1 call site(s) in 1 caller(s):\n  app.py:8-9 function via_param — calls at line 9');
  });

  it("Go: a method's receiver, a pointer parameter, `x := T{}` and `var x T`", async () => {
    const ix = await index(GO_TYPED);
    const store = callers(ix, 'Get', 'store.go');
    expect(store).toContain('2 call site(s) in 2 caller(s):\n  main.go:3-5 function viaParam — calls at line 4\n  main.go:7-11 function main — calls at line 10');
    expect(callers(ix, 'Get', 'cache.go')).toContain('1 call site(s) in 1 caller(s):\n  main.go:7-11 function main — calls at line 10');
    expect(callees(ix, 'Get', 'cache.go')).toContain('  Put (line 6) → cache.go:9-11');
  });
});
