// The rolldown calls of the build's post-steps (vendor-packages.mjs, bundle-entries.mjs): node platform, the
// bundle closed even when the write fails.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { rolldown } from 'rolldown';

/** Runs `use` on a rolldown bundle of `input`, closing it even when `use` fails. */
async function withBundle(input, use) {
  const bundle = await rolldown({ platform: 'node', logLevel: 'warn', ...input });
  try {
    return await use(bundle);
  } finally {
    await bundle.close();
  }
}

export function writeBundle(input, output) {
  return withBundle(input, (bundle) => bundle.write({ format: 'esm', ...output }));
}

/** A plain CommonJS file that Node's own loader runs (the thread workers' entry): its import() stays import(). */
export function writeCjs(input, file) {
  return writeBundle(input, { format: 'cjs', file, codeSplitting: false, dynamicImportInCjs: true, exports: 'named' });
}

/** CommonJS for src/runtime/code-cache.ts, one file (`out.file`) or an entry with chunks (`out.dir`, file names):
 *  dynamic imports become `require` with none left (node:vm could not run them), and each file's last line names
 *  its build (a hash of its text), which keys its code cache. ASCII without comments (bundler annotations aside): every thread keeps the text as a
 *  V8 string, two bytes a character once a single non-ASCII one is in it (strings are escaped, their values the same). */
export function writeStampedCjs(input, out) {
  return withBundle(input, async (bundle) => {
    const single = typeof out === 'string';
    const { output } = await bundle.generate({ format: 'cjs', dynamicImportInCjs: false, exports: 'named', charset: 'ascii', comments: { legal: false, annotation: true, jsdoc: false }, ...(single ? { codeSplitting: false } : out.output) });
    const chunks = output.filter((o) => o.type === 'chunk');
    if (single && chunks.length !== 1) throw new Error(`${out}: expected exactly one chunk`);
    for (const chunk of chunks) {
      const file = single ? out : join(out.dir, chunk.fileName);
      if (/\bimport\s*\(/.test(stripStrings(chunk.code))) throw new Error(`${file}: a dynamic import() is left in the bundle`);
      const build = createHash('sha256').update(chunk.code).digest('hex').slice(0, 16);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${chunk.code.replace(/\n?$/, '\n')}//# yagent-build ${build}\n`);
    }
  });
}

/** The code without string literals and comments (an error message may say "import(" without importing anything). */
function stripStrings(code) {
  return code.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|`(?:\\[\s\S]|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, '""');
}
