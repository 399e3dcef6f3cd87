// Test fixture actor whose module takes 10 s to load: a window in which to cancel a start.
import { defineActor } from '../actor.js';

await new Promise((r) => setTimeout(r, 10_000));

export default defineActor<unknown, string>({
  kind: 'fixture',
  run() {
    return Promise.resolve('loaded');
  },
});
