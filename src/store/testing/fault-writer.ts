// Fault-test child: writes rollout records and notes at full speed, printing what is acknowledged durable.
// Run as `node dist/src/store/testing/fault-writer.js <dataRoot>`; the parent SIGKILLs it at random moments.
import { StoreService } from '../service.js';

async function main(): Promise<void> {
  const root = process.argv[2];
  if (!root) throw new Error('usage: fault-writer <dataRoot>');
  const store = new StoreService({ env: { YAGENT_HOME: root } });
  const h = await store.openRollout({
    sessionId: `s${process.pid}`, taskId: 't', agent: 'director', projectId: 'fault', cwd: root,
    delegationId: null, parentSessionId: null, boardId: 'fault',
  });
  process.stdout.write(`path ${h.path}\n`);
  let seq = 0;
  for (let round = 0; ; round++) {
    const batch = Array.from({ length: 10 }, () => {
      seq++;
      return { type: 'response_item' as const, ts: seq, payload: { role: 'user' as const, content: `r${seq}` } };
    });
    await store.appendRollout(h.path, batch);
    const note = store.writeNote({
      boardId: 'fault', agent: 'repo',
      handoff: { version: 2, agent: 'repo', status: 'ok', conclusion: `n${round}`, facts: [], artifacts: [], mentions: [] },
      body: `body ${round} `.repeat(200),
    });
    const upto = seq;
    await store.drain(h.path);
    // stdout to a pipe is synchronous on Linux: once written, the parent has the acknowledgement
    process.stdout.write(`ack ${upto}\n`);
    process.stdout.write(`note ${(await note).ref}\n`);
  }
}

await main();
