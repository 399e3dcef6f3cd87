// Step of `npm run build`: dist/build-stamp.json names what was built (version, commit, build time), so
// `yagent --version` can say which build runs. Outside a git checkout (a tarball) the commit is "unknown".
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const git = (...args) => execFileSync('git', ['-c', 'core.fsmonitor=false', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

let commit = 'unknown';
try {
  commit = git('rev-parse', '--short=12', 'HEAD');
  // a build of uncommitted changes is not that commit's build: say so
  if (git('status', '--porcelain', '--untracked-files=no') !== '') commit += '-dirty';
} catch {
  // no git or no checkout: the stamp says "unknown" rather than failing the build
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const stamp = { version, commit, built_at: new Date().toISOString() };
writeFileSync(join(root, 'dist', 'build-stamp.json'), `${JSON.stringify(stamp)}\n`);
