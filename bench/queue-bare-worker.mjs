// The bench's bare BullMQ consumer (bench/queue.ts): its own process, the same Redis, default Worker options;
// prints `start ID` when its processor is called and `done ID` after it returns. argv: HOST PORT QUEUE.
import { Worker } from 'bullmq';

const [host, port, name] = process.argv.slice(2);
const w = new Worker(
  name,
  async (job) => {
    process.stdout.write(`start ${job.id}\n`);
    return { ok: true };
  },
  { connection: { host, port: Number(port), maxRetriesPerRequest: null } },
);
w.on('completed', (job) => process.stdout.write(`done ${job.id}\n`));
w.on('ready', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  w.close().then(() => process.exit(0), () => process.exit(1));
});
