// The queue's sub-commands (loaded lazily by main.ts: a local run never loads BullMQ).
import { makeRedactor } from '../../../src/runtime/redact.js';
import { withLocalHost } from '../../host/session.js';
import { loadRunConfig } from '../../host/run-config.js';
import type { ExitCode } from '../exit-codes.js';
import type { Streams } from '../output.js';
import type { QueueCommand } from './args.js';
import { runResults, runStatus } from './inspect.js';
import { runQueueBatch } from './producer.js';
import { runWorker } from './worker.js';
import { setWorkerName } from './workspace.js';

export async function runQueueCommand(cmd: QueueCommand, io: Streams): Promise<ExitCode> {
  switch (cmd.kind) {
    case 'queue-status':
      return runStatus(cmd.target, cmd.json, io);
    case 'queue-results':
      return runResults(cmd.target, cmd.out, io);
    case 'queue-batch':
      return runQueueBatch({
        file: cmd.file,
        target: cmd.target,
        detach: cmd.detach,
        attempts: cmd.attempts,
        backoffMs: cmd.backoffMs,
        out: cmd.out,
        defaults: { yolo: cmd.flags.yolo, fullYolo: cmd.flags.fullYolo, disabledAgents: cmd.flags.disabledAgents },
        io,
        isTty: process.stderr.isTTY === true,
      });
    case 'worker': {
      setWorkerName(cmd.name);
      // results leave this machine: the keys of this worker's config and its secret-named variables are redacted
      const config = await loadRunConfig(cmd.flags.config, process.env['YAGENT_FAKE_SCRIPT'] !== undefined);
      const secrets = Object.values(config.providers ?? {}).map((p) => p.apiKey).filter((k) => k !== '');
      const redactor = makeRedactor(secrets, process.env);
      return withLocalHost({ configPath: cmd.flags.config, io, verbose: cmd.flags.verbose }, (host) =>
        runWorker(host, { target: cmd.target, concurrency: cmd.concurrency, lockMs: cmd.lockMs, stalledMs: cmd.stalledMs, forceQuit: cmd.flags.forceQuit, io, redactor }),
      );
    }
  }
}
