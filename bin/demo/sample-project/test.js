// Plain-node test runner: runs every *.test.js next to this file; exit code 1 on the first failure.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let failed = 0;
for (const name of readdirSync(here).filter((n) => n.endsWith('.test.js')).sort()) {
  const mod = await import(pathToFileURL(join(here, name)).href);
  for (const [label, fn] of Object.entries(mod.tests ?? {})) {
    try {
      await fn();
      console.log(`ok   ${name} ${label}`);
    } catch (err) {
      failed += 1;
      console.log(`FAIL ${name} ${label}: ${err.message}`);
    }
  }
}
console.log(failed === 0 ? 'all tests passed' : `${failed} test(s) failed`);
process.exitCode = failed === 0 ? 0 : 1;
