// Public surface of the runtime for store, actors and bin.
export * from './actor.js';
export { Runtime, DEFAULT_SHUTDOWN_MS, type RuntimeOptions, type ServiceSpec, type TaskHandle } from './runtime.js';
export { Supervisor, type SupervisorEvent, type SupervisorOptions } from './supervisor.js';
export type { ChildHandle, ChildSpec, ChildState, Exit, TreeNode } from './child.js';
export { Dispatcher, DEFAULT_MAILBOX_CAPACITY, SYSTEM_SCOPE, laneOf, type DropLedger, type SubscribeOptions } from './dispatcher.js';
export type { Mailbox, MailboxFilter, MailboxStats } from './mailbox.js';
export { NamedTasks, createTaskGroup } from './tasks.js';
export { PauseController, ActivityClock, type ActivityTimeout } from './pause.js';
export { realClock, ManualClock, sleep } from './clock.js';
export { childController, timeoutSignal, codedError } from './abort-chain.js';
export type { CpuPool } from './cpu-pool.js';
export { CPU_SERVICE, type CpuJob, type CpuService } from './cpu-service.js';
export { isSecretName, secretValues, SECRET_NAME_PARTS } from './secrets.js';
