// Hand-checked repositories for the code index: every caller and callee below was read off the text by hand.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function writeTree(root: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
}

export function tempRepo(files: Record<string, string>, git = true): string {
  const root = mkdtempSync(join(tmpdir(), 'codeseek-'));
  writeTree(root, files);
  if (git) execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
}

export const TS_FILES = {
  'src/math.ts': [
    'export function add(a: number, b: number): number {', // 1
    '  return a + b;',
    '}',
    'export function twice(x: number): number {', // 4
    '  return add(x, x);', // 5
    '}',
    'export class Calc {', // 7
    '  total = 0;',
    '  plus(n: number): this {', // 9
    '  this.total = add(this.total, n);', // 10
    '    return this;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/main.ts': [
    "import { add, twice, Calc } from './math.js';", // 1
    '// add(9, 9) in a comment is no call',
    'const note = "add(1, 2) in a string is no call";',
    'export function run(): number {', // 4
    '  const c = new Calc().plus(twice(2));', // 5
    '  return add(c.total, note.length);', // 6
    '}',
    'run();', // 8
    '',
  ].join('\n'),
};

export const PY_FILES = {
  'pkg/__init__.py': '',
  'pkg/util.py': [
    'import os', // 1
    '',
    'def norm(p):', // 3
    '    return os.path.normpath(p)', // 4
    '',
    'class Walker:', // 6
    '    def walk(self, root):', // 7
    '        return [norm(x) for x in os.listdir(root)]', // 8
    '',
  ].join('\n'),
  'app.py': [
    'from pkg.util import norm, Walker', // 1
    '',
    'def main():', // 3
    '    # norm("x") in a comment',
    '    w = Walker()', // 5
    '    print(norm("a"), w.walk("."))', // 6
    '',
    'if __name__ == "__main__":',
    '    main()', // 9
    '',
  ].join('\n'),
};

export const GO_FILES = {
  'go.mod': 'module example.com/greet\n\ngo 1.21\n',
  'main.go': [
    'package main', // 1
    '',
    'import (',
    '\t"fmt"',
    '\t"strings"',
    ')',
    '',
    'type Greeter struct{ name string }', // 8
    '',
    'func (g *Greeter) Greet() string {', // 10
    '\treturn format(g.name)', // 11
    '}',
    '',
    'func format(s string) string {', // 14
    '\treturn strings.ToUpper(s)', // 15
    '}',
    '',
    'func main() {', // 18
    '\tg := &Greeter{name: "x"}',
    '\tfmt.Println(g.Greet(), format("y"))', // 20
    '}',
    '',
  ].join('\n'),
};

/** A generated TypeScript repository of `n` files: file i declares f<i> and calls f<i-1> (file 0 calls nothing). */
export function generatedTs(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const prev = i > 0 ? `import { f${i - 1} } from './m${i - 1}.js';\n` : '';
    const call = i > 0 ? `f${i - 1}(x) + ` : '';
    files[`src/d${Math.floor(i / 100)}/m${i}.ts`.replace(`/m${i}.ts`, `/m${i}.ts`)] =
      `${prev}export interface Shape${i} { id: number; name: string }\nexport function f${i}(x: number): number {\n  return ${call}${i};\n}\nexport class C${i} {\n  run(s: Shape${i}): number {\n    return f${i}(s.id);\n  }\n}\n`;
  }
  // imports must resolve inside one directory: put every file in one folder for the relative specifiers
  return Object.fromEntries(Object.entries(files).map(([p, t]) => [p.replace(/src\/d\d+\//, 'src/'), t]));
}

/** Same-named declarations in unrelated modules: each call below was resolved by hand through the file's imports. */
export const TS_SHADOW = {
  ...TS_FILES,
  'src/other.ts': ['export function add(a: string): string {', '  return a;', '}', ''].join('\n'), // add: 1-3
  'src/barrel.ts': "export { twice } from './math.js';\nexport * from './other.js';\n",
  'src/shapes.ts': [
    'export class Box {', // 1
    '  size(): number {', // 2: Box.size 2-4
    '    return 1;',
    '  }',
    '  area(): number {', // 5
    '    return this.size() * 2;', // 6: Box.size through this
    '  }',
    '}',
    'export class Ball {', // 9
    '  size(): number {', // 10: Ball.size 10-12
    '    return 2;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/use.ts': [
    "import { add } from './other.js';", // 1
    "import * as m from './math.js';",
    "import { twice as double } from './barrel.js';",
    "import { add as plusAll } from 'some-package';",
    'export function use(c: { add(x: number): number }): string {', // 5
    '  m.add(1, 2);', // 6: math.ts add through the namespace
    '  c.add(3);', // 7: a method on an object: unresolved
    '  plusAll(1);', // 8: a package's add
    '  double(4);', // 9: math.ts twice through the barrel
    '  return add("x");', // 10: other.ts add
    '}',
    '',
  ].join('\n'),
};

export const PY_SHADOW = {
  ...PY_FILES,
  'other/__init__.py': '',
  'other/util.py': 'def norm(p):\n    return p\n', // norm: 1-2
  'tool.py': [
    'from other.util import norm', // 1
    'import pkg.util as pu',
    'import os',
    'def go():', // 4
    '    norm("b")', // 5: other/util.py
    '    pu.norm("c")', // 6: pkg/util.py
    '    os.path.join("d")', // 7: the standard library
    '',
  ].join('\n'),
};

export const GO_SHADOW = {
  ...GO_FILES,
  'text/text.go': ['package text', '', 'func format(s string) string {', '\treturn s', '}', '', 'func Use() string {', '\treturn format("z")', '}', ''].join('\n'),
  'cmd/run.go': ['package main', '', 'import (', '\tt "example.com/greet/text"', ')', '', 'func Run() string {', '\treturn t.Use()', '}', ''].join('\n'),
};

/** Method calls on objects whose type the syntax states (resolved by hand: `new C()`, a typed parameter, a field, a
 *  constructor parameter property, Python `self.f = C()`, a Go receiver, `x := T{}`, `var x T`); an inherited method
 *  and an object of unstated type stay unresolved. */
export const TS_TYPED = {
  'src/store.ts': ['export class Store {', '  get(k: string): string {', '    return k;', '  }', '}', ''].join('\n'), // get: 2-4
  'src/cache.ts': ['export class Cache {', '  get(k: string): string {', '    return k;', '  }', '}', ''].join('\n'), // get: 2-4
  'src/app.ts': [
    "import { Store } from './store.js';", // 1
    "import { Cache } from './cache.js';", // 2
    'export class App {', // 3
    '  private cache: Cache;', // 4
    '  constructor(private readonly store: Store) {', // 5
    '    this.cache = new Cache();', // 6
    '  }',
    '  read(k: string): string {', // 8
    '    return this.store.get(k) + this.cache.get(k);', // 9
    '  }',
    '}',
    'export function viaParam(s: Store): string {', // 12
    "  return s.get('a');", // 13
    '}',
    'export function viaNew(): string {', // 15
    '  const c = new Cache();',
    "  return c.get('b');", // 17
    '}',
    'export function unknown(x: any): string {', // 19
    "  return x.get('c');", // 20
    '}',
    'export class Sub extends Store {}', // 22
    'export function viaSub(): string {', // 23
    '  const s = new Sub();',
    "  return s.get('d');", // 25
    '}',
    'export function twoCallbacks(f: (g: (x: unknown) => string) => void): void {', // 27
    "  f((x: Store) => x.get('e'));", // 28: two parameters x of two types in one declaration: no type
    "  f((x: Cache) => x.get('f'));", // 29
    '}',
    '',
  ].join('\n'),
};

export const PY_TYPED = {
  'pkg/__init__.py': '',
  'pkg/store.py': 'class Store:\n    def get(self, k):\n        return k\n', // get: 2-3
  'pkg/cache.py': 'class Cache:\n    def get(self, k):\n        return k\n', // get: 2-3
  'app.py': [
    'from pkg.store import Store', // 1
    'from pkg.cache import Cache', // 2
    'class App:', // 3
    '    def __init__(self):',
    '        self.store = Store()', // 5
    '    def read(self, k):', // 6
    '        return self.store.get(k)', // 7
    'def via_param(c: Cache):', // 8
    '    return c.get("a")', // 9
    'def via_new():', // 10
    '    s = Store()',
    '    return s.get("b")', // 12
    '',
  ].join('\n'),
};

export const GO_TYPED = {
  'go.mod': 'module example.com/typed\n\ngo 1.21\n',
  'store.go': ['package main', '', 'type Store struct{}', '', 'func (s *Store) Get(k string) string {', '\treturn k', '}', ''].join('\n'), // Get: 5-7
  'cache.go': [
    'package main',
    '',
    'type Cache struct{}',
    '',
    'func (c Cache) Get(k string) string {', // 5
    '\treturn c.Put(k)', // 6
    '}',
    '',
    'func (c Cache) Put(k string) string {', // 9
    '\treturn k',
    '}',
    '',
  ].join('\n'),
  'main.go': [
    'package main',
    '',
    'func viaParam(s *Store) string {', // 3
    '\treturn s.Get("a")', // 4
    '}',
    '',
    'func main() {', // 7
    '\tc := Cache{}',
    '\tvar s Store',
    '\tprintln(c.Get("b"), s.Get("c"))', // 10
    '}',
    '',
  ].join('\n'),
};
