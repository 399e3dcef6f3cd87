// Last post-build step of `npm run build`: trains the V8 code caches of the thread bundles (bundle-entries.mjs) on
// real runs with YAGENT_CODE_CACHE_TRAIN=<dir>: `yagent demo` (a scripted multi-agent run: CLI, Director, delegations,
// tools, store, the OpenAI SDK), then a `-p` turn on the loopback fake model in the Anthropic format (its SDK) and one
// in the OpenAI format (both pre-send the Director's first request from the CLI's main thread).
// Every thread writes what it compiled as it ends (src/runtime/code-cache.ts); the largest cache of each bundle build
// is kept beside it as `<bundle>.<build>.v8cache`, and the next run starts from it. A cache made by another node
// binary is refused by V8 and the bundle compiles from source: slower, never wrong.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const CACHE = /^(.+\.cjs)\.([0-9a-f]{16})\.(?:\d+\.\d+\.)?v8cache$/;
const { BUILD_LINE, cacheFileFor } = await import(new URL('../dist/src/runtime/code-cache.js', import.meta.url).href);

/** Every file under dir (dist is small: a few hundred files). */
function files(dir, out = []) {
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name);
    if (name.isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

/** One CLI run of the training; a failure fails the build (the caches would be missing or partial). */
async function run(args, env) {
  const child = spawn(process.execPath, [join(root, 'bin', 'yagent.js'), ...args], { env, cwd: env.HOME, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b) => (stderr += b));
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`the training run (yagent ${args.join(' ')}) exited ${code}:\n${stderr}`);
}

/** A single-agent `-p` turn of a new task on the fake model in one API format: the CLI's main thread pre-sends its
 *  Director's first request (bin/host/presend.ts) with that format's engine and SDK, which the demo (a scripted model,
 *  nothing pre-sent) never runs on the main thread; the Anthropic turn also trains the Anthropic SDK. */
async function presendTurn(env, format) {
  const { FakeProvider } = await import(new URL('../dist/src/actors/llm/fake/server.js', import.meta.url).href);
  const fake = await FakeProvider.start({ model: 'train-model' });
  try {
    fake.script('director', { text: 'trained.', finishReason: 'stop' });
    const config = join(env.HOME, `${format}.toml`);
    const base = format === 'anthropic' ? fake.anthropicBaseUrl : fake.openaiBaseUrl;
    const toml = `[global.llm]\nuse_provider = "a"\n\n[global.llm.providers.a]\napi_format = "${format}"\napi_base_url = "${base}"\nmodel = "train-model"\napi_key = "train"\n\n[routing]\nmode = "fixed"\n`;
    writeFileSync(config, toml, { mode: 0o600 });
    await run(['-c', config, '-d', 'all', '-p', 'say trained', '-y'], env);
  } finally {
    await fake.close();
  }
}

/** Places the largest cache of each bundle build written in `out` (the thread that compiled the most of it) beside
 *  its bundle, and empties `out`: the next training run starts from these, so what it compiles adds to them. */
function place(out) {
  const best = new Map();
  for (const name of readdirSync(out)) {
    const m = CACHE.exec(name);
    if (!m) continue;
    const size = statSync(join(out, name)).size;
    if (!best.has(m[2]) || best.get(m[2]).size < size) best.set(m[2], { name, size });
  }
  const placed = [];
  for (const bundle of files(dist).filter((f) => f.endsWith('.cjs'))) {
    const build = BUILD_LINE.exec(readFileSync(bundle, 'utf8').slice(-64))?.[1];
    const found = build === undefined ? undefined : best.get(build);
    if (!found) continue;
    copyFileSync(join(out, found.name), cacheFileFor(bundle, build));
    placed.push(`${relative(root, bundle)} (${Math.round(found.size / 1024)} KB)`);
  }
  for (const name of readdirSync(out)) rmSync(join(out, name));
  return placed;
}

// caches of every bundle are remade from these runs
for (const f of files(dist)) if (CACHE.test(f.slice(f.lastIndexOf('/') + 1))) rmSync(f);

const tmp = mkdtempSync(join(tmpdir(), 'yagent-train-'));
try {
  const out = join(tmp, 'caches');
  mkdirSync(out);
  // a private data root and HOME: the training runs write nothing of the user's
  const env = { PATH: process.env.PATH, HOME: tmp, YAGENT_HOME: join(tmp, 'home'), YAGENT_CODE_CACHE_TRAIN: out, NO_COLOR: '1' };
  await run(['demo'], env);
  const first = place(out);
  await presendTurn(env, 'anthropic');
  const second = place(out);
  await presendTurn(env, 'openai');
  const third = place(out);
  // a bundle's cache from a later run holds the earlier runs' functions too (it started from that cache)
  const byBundle = new Map([...first, ...second, ...third].map((line) => [line.slice(0, line.indexOf(' (')), line]));
  const kb = [...byBundle.values()].reduce((n, line) => n + Number(/\((\d+) KB\)/.exec(line)?.[1] ?? 0), 0);
  process.stderr.write(`code caches trained: ${byBundle.size} bundles, ${kb} KB (${[...byBundle.keys()].filter((b) => !b.includes('/chunks/')).join(', ')} and the CLI's chunks)\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
