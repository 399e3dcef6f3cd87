// DerivedEdgesEqualCompilerImports: the blueprint's file edges (tree-sitter imports, resolved) are exactly the
// imports the TypeScript compiler resolves, on this repository and on a generated one.
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, expect, it } from 'vitest';
import { derive } from '../../src/actors/blueprint/derive.js';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { realClock } from '../../src/runtime/clock.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { generatedTs, tempRepo } from '../codeseek/fixtures.js';

const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** What the compiler sees: every import/export/dynamic import of each file, resolved like tsc (NodeNext). */
function compilerEdges(root: string, files: string[]): string[] {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: true };
  const inRepo = new Set(files);
  const out = new Set<string>();
  for (const f of files) {
    const abs = join(root, f);
    for (const imp of ts.preProcessFile(readFileSync(abs, 'utf8'), true, true).importedFiles) {
      const r = ts.resolveModuleName(imp.fileName, abs, options, ts.sys).resolvedModule;
      if (!r || r.isExternalLibraryImport === true) continue;
      const rel = relative(root, r.resolvedFileName).split('\\').join('/');
      if (inRepo.has(rel) && rel !== f) out.add(`${f} -> ${rel}`);
    }
  }
  return [...out].sort();
}

async function derivedEdges(root: string, keep: (p: string) => boolean): Promise<{ edges: string[]; files: string[] }> {
  const cs = new CodeSeek({ tasks: createTaskGroup(), clock: realClock });
  await cs.settle(root);
  const files = (await cs.files(root, 60_000)).filter((f) => f.lang === 'typescript' || f.lang === 'tsx');
  const d = derive(root, files);
  const names = files.map((f) => f.path).filter(keep);
  return { edges: d.fileEdges.filter(([a]) => keep(a)).map(([a, b]) => `${a} -> ${b}`).filter((e) => names.includes(e.split(' -> ')[1] ?? '')).sort(), files: names };
}

it('DerivedEdgesEqualCompilerImports on this repository (src and bin)', async () => {
  const root = join(import.meta.dirname, '..', '..');
  const keep = (p: string): boolean => (p.startsWith('src/') || p.startsWith('bin/')) && !p.endsWith('.d.ts');
  const { edges, files } = await derivedEdges(root, keep);
  expect(files.length).toBeGreaterThan(200);
  const expected = compilerEdges(root, files);
  expect(expected.length).toBeGreaterThan(500);
  expect(edges).toEqual(expected);
}, 180_000);

it('DerivedEdgesEqualCompilerImports on a generated repository', async () => {
  const root = tempRepo(generatedTs(150));
  made.push(root);
  const { edges, files } = await derivedEdges(root, () => true);
  expect(edges).toHaveLength(149);
  expect(edges).toEqual(compilerEdges(root, files));
}, 120_000);
