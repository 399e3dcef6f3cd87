// `yagent --help`: every client and the exit-code table in one screen.
import type { HelpTopic } from './args.js';
import { EXIT_TABLE } from './exit-codes.js';

export function usage(version: string): string {
  return `yagent ${version}: a multi-agent AI coding assistant

usage:
  yagent [--attach] [--resume SESSION_ID | --continue]
                          the interactive terminal UI (on a terminal; in-process, or on a running serve)
  yagent "PROMPT"         the interactive terminal UI, starting with that prompt (on a terminal; else use -p)
  yagent -p "PROMPT" [--output-format text|json|stream-json] [--attach]
                          one headless turn (Director + delegations); answer on stdout, progress on stderr
  yagent -p "PROMPT" --provider NAME [--model ID]
                          this run on a configured provider (every agent), with that model; --model alone
                          = the default provider with that model (batch and attach send take both too)
  yagent -p "PROMPT" --resume SESSION_ID | --continue [--fork]
                          a next turn of a session (json/stream-json report session_id); --continue = the
                          workspace's most recent session; --fork = a new session from a copy of it
  yagent sessions [--json]
                          this workspace's sessions: id, started, turns, stop reason, tokens, last prompt
  yagent undo [ID] [--dry-run] [--yes] [--json]
                          what can be undone (turns, write delegations); ID puts their files back as before
  yagent -p - < prompt.txt
                          the prompt from stdin (also when stdin is piped and -p is absent)
  yagent demo             a real multi-agent run on a scripted model: no key needed
  yagent batch TASKS.jsonl [--parallel N] [--out results.jsonl]
                          many headless tasks; re-running skips finished ones; Ctrl-C drains
  yagent batch TASKS.jsonl --queue redis://HOST:PORT[/DB] [--detach] | batch status|results --queue URL
  yagent worker --queue URL [--concurrency N]
                          the same tasks through a Redis queue (BullMQ), run by workers on any machines
  yagent serve [--port N] a long-running supervisor with a control server (127.0.0.1 + token)
  yagent attach CMD       ps, tasks, logs -f TASK, pause|continue|cancel TASK, approvals,
                          approve|deny REQUEST, timeline TASK, drain   (yagent attach --help)
  yagent setup            write a model provider into the config (works on a broken config)
  yagent mcp list | tools SERVER | call SERVER TOOL [JSON]
                          MCP server diagnostics (yagent mcp --help)
  yagent --version | --help

common flags:
  -c, --config PATH       use this config file as is (never created)
  -y, --yolo              bypass every authorization (denied places stay denied)
  -Y, --full-yolo         -y, and the agents decide alone (no questions to the user)
  -d, --disable-agents L  comma-separated sub-agents the Director may not use (all = every one)
  -Q, --force-quit        Ctrl-C quits at once instead of draining
  -v, --verbose           also print warnings and errors of the log (~/.yagent/logs/) on stderr

data: ~/.yagent (YAGENT_HOME overrides): config/config.toml, data/rollout/, notes/, logs/, run/

security: without -y yagent asks before reading or writing outside the workspace. On Linux run_bash runs in
  a bubblewrap sandbox (read-only outside the workspace, the stores below hidden, its own PID namespace); where
  bubblewrap is missing start-up says so, and without it the word check is not a sandbox.
  The data root and ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gcloud, .netrc, .env* are denied even with -y
  ([security] allow_read opens one); run_bash sees no API keys or *KEY*/*TOKEN*/*SECRET* variables.

${EXIT_TABLE}
`;
}

const COMMON_FLAGS = `common flags: -c/--config PATH, -y/--yolo, -Y/--full-yolo, -d/--disable-agents LIST, -Q/--force-quit, -v/--verbose
(common flags may also come before the sub-command: yagent -c my.toml serve)`;

const TOPICS: Record<HelpTopic, string> = {
  demo: `usage: yagent demo [--keep]
  A real multi-agent run on a SCRIPTED model in a temp copy of bin/demo/sample-project (no API key needed).
  --keep                  keep the temp workspace (it is removed on every other exit path)`,
  batch: `usage: yagent batch TASKS.jsonl [--parallel N] [--out results.jsonl] [--provider NAME] [--model ID]
  One task per line: {"id"?, "prompt", "workspace"?, "provider"?, "model"?, "options"?: {"yolo", "full_yolo", "disable_agents"}}.
  -j, --parallel N        tasks run at once (default 2)
  --provider, --model     every task's provider / model (a line's own "provider" / "model" wins)
  -o, --out FILE          results file (default TASKS.results.jsonl); re-running skips finished ids
  --no-retry-failed       a re-run does not try failed tasks again (the batch still exits 1)
  A re-run continues each interrupted task's session (recorded tool calls are not run again) and retries failed
  ones; it exits 1 while any task's latest result is a failure.
  A task whose workspace does not exist or whose provider is unknown fails alone; Ctrl-C drains the running tasks.

usage: yagent batch TASKS.jsonl --queue redis://[:PASSWORD@]HOST:PORT[/DB][?queue=NAME] [--detach] [--attempts N]
       yagent batch status --queue URL [--json]  |  yagent batch results --queue URL [--out results.jsonl]
  Queues the tasks for \`yagent worker\` processes (the task id is the job id: a task queued or done is not queued
  again) and follows them with the same progress line; --detach returns at once. A line may name "repo" (a git URL)
  and "ref": the worker clones it into a private workspace, removed after. -y / -Y / -d travel with the tasks.
  --attempts N            tries per task (default 3), retried with exponential backoff from --backoff-ms (2000)
  -o, --out FILE          the result lines, written when a followed batch ends; \`results\` prints them without it
  rediss:// is TLS; REDIS_PASSWORD sets the password when the URL has none; no API key goes into the queue.`,
  worker: `usage: yagent worker --queue redis://[:PASSWORD@]HOST:PORT[/DB][?queue=NAME] [--concurrency N] [--name NAME]
  Takes queued tasks and runs each as a local batch task runs, with this machine's config and keys.
  -j, --concurrency N     tasks at once (default 1)
  --name NAME             the worker's name in results and status (default HOST:PID)
  --lock-ms MS            how long a task's lock lives without renewal (default 30000): a dead worker's task is
  --stalled-ms MS         taken over after about lock-ms + stalled-ms (check period, default 30000)
  SIGTERM / Ctrl-C drains (running tasks finish, no new one is taken); a second signal quits at once and the
  queue gives its tasks to other workers.`,
  serve: `usage: yagent serve [--port N]
  A long-running supervisor with a control server on 127.0.0.1 (bearer token in ~/.yagent/run/).
  --port N                0-65535 (default 0: any free port)
  Clients: yagent attach …, yagent -p … --attach`,
  setup: `usage: yagent setup [--provider NAME --base-url URL --model MODEL [--api-key-env VAR] [--format openai|anthropic]] [--no-probe]
  Writes a provider into the config (comments kept) and makes it global.llm.use_provider; works on a broken config.
  Without flags on a terminal it asks; the key question takes the key itself (not echoed; kept in the 0600 config)
  or the name of the variable holding it. The key is never taken from argv. Ctrl-C or Ctrl-D cancels (exit 130).
  A server on loopback needs no key; without --model the first model the server lists is taken. A config that
  would not load is never written (exit 2).
  --no-probe              do not ask local servers (llama.cpp 8080, Ollama 11434, LM Studio 1234, vLLM 8000, --base-url)`,
};

/** `yagent <sub-command> --help`. */
export function subcommandUsage(topic: HelpTopic): string {
  return `${TOPICS[topic]}\n\n${COMMON_FLAGS}\n`;
}
