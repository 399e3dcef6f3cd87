// `yagent demo`: a real multi-agent run in a temp copy of the sample project; only the model is scripted.
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/runtime/dist-paths.js';
import { DEMO_SCRIPT } from '../demo/script.js';
import { dataRoot } from './home.js';
import { withLocalHost } from '../host/session.js';
import { makeTempDir } from '../host/temp-dir.js';
import type { CommonFlags } from './args.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { runHeadlessLocal } from './headless.js';
import type { Streams } from './output.js';

export const DEMO_PROMPT = 'Add a slugify(s) helper with a test to this project, and check that the tests pass.';

export async function runDemo(opts: { flags: CommonFlags; keep: boolean; io: Streams }): Promise<ExitCode> {
  if (opts.keep) return runInWorkspace(mkdtempSync(join(tmpdir(), 'yagent-demo-')), opts);
  // removed on every exit path, a force quit included
  const tmp = makeTempDir('yagent-demo-');
  try {
    return await runInWorkspace(tmp.path, opts);
  } finally {
    tmp.remove();
  }
}

async function runInWorkspace(workspace: string, opts: { flags: CommonFlags; keep: boolean; io: Streams }): Promise<ExitCode> {
  const { io } = opts;
  cpSync(join(packageRoot(), 'bin', 'demo', 'sample-project'), workspace, { recursive: true });
  io.stderr(
    [
      'yagent demo: a real multi-agent run with a SCRIPTED model (no API key needed).',
      '  The model replies are scripted; everything else is real: worker-thread agents, the supervisor,',
      '  the dispatcher, the tools (files are really written, the test really runs), notes and rollouts.',
      `  workspace: ${workspace} (a copy of bin/demo/sample-project)`,
      `  prompt:    ${DEMO_PROMPT}`,
      '',
    ].join('\n'),
  );
  // -y: the demo writes only inside its own temp workspace, and there is nobody to ask
  const spec = { prompt: DEMO_PROMPT, workspace, options: { yolo: true, fullYolo: false, disabledAgents: [] } };
  const code = await withLocalHost({ configPath: undefined, io, script: DEMO_SCRIPT, baseConfig: 'template', verbose: opts.flags.verbose }, (host) =>
    runHeadlessLocal(host, { spec, format: 'text', forceQuit: opts.flags.forceQuit, io }),
  );
  const wrote = existsSync(join(workspace, 'slug.js')) && existsSync(join(workspace, 'slug.test.js'));
  io.stderr(`\nfiles written by the Coding agent: ${wrote ? 'slug.js, slug.test.js' : 'none (see the errors above)'}\n`);
  io.stderr(`rollouts: ${join(dataRoot(), 'data', 'rollout')}   notes: ${process.env.YAGENT_NOTES_ROOT ?? join(dataRoot(), 'notes')}\n`);
  if (opts.keep) io.stderr(`workspace kept: ${workspace}\n`);
  io.stderr(code === EXIT.ok && wrote ? 'demo: passed\n' : 'demo: FAILED\n');
  return code === EXIT.ok && !wrote ? EXIT.error : code;
}
