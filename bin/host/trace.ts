// The clients' phase timings: the runtime's one YAGENT_TRACE writer (every thread, ms since the process started).
export { trace } from '../../src/runtime/trace.js';
