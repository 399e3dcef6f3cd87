// `yagent --help`: every client and the exit-code table in one screen.
import { EXIT_TABLE } from './exit-codes.js';

export function usage(version: string): string {
  return `yagent ${version}: a multi-agent AI coding assistant

usage:
  yagent -p "PROMPT" [--output-format text|json|stream-json] [--attach]
                          one headless turn (Director + delegations); answer on stdout, progress on stderr
  yagent -p - < prompt.txt
                          the prompt from stdin (also when stdin is piped and -p is absent)
  yagent demo             a real multi-agent run on a scripted model: no key needed
  yagent batch TASKS.jsonl [--parallel N] [--out results.jsonl]
                          many headless tasks; re-running skips finished ones; Ctrl-C drains
  yagent serve [--port N] a long-running supervisor with a control server (127.0.0.1 + token)
  yagent attach CMD       ps, tasks, logs -f TASK, pause|continue|cancel TASK, approvals,
                          approve|deny REQUEST, timeline TASK, drain   (yagent attach --help)
  yagent setup            write a model provider into the config (works on a broken config)
  yagent mcp list | tools SERVER | call SERVER TOOL [JSON]
                          MCP server diagnostics (yagent mcp --help)
  yagent --version | --help

common flags:
  -c, --config PATH       use this config file as is (never created)
  -y, --yolo              bypass every authorization
  -Y, --full-yolo         -y, and the agents decide alone (no questions to the user)
  -d, --disable-agents L  comma-separated sub-agents the Director may not use (all = every one)
  -Q, --force-quit        Ctrl-C quits at once instead of draining

data: ~/.yagent (YAGENT_HOME overrides): config/config.toml, data/rollout/, notes/, run/

${EXIT_TABLE}
`;
}
