// The embedded, commented config template written (0600) to ~/.yagent/config/config.toml on first start.
export const PLACEHOLDER_API_KEY = 'REPLACE_WITH_YOUR_API_KEY';

export const CONFIG_TEMPLATE = `# yagent configuration. Edit freely: yagent rewrites single keys in place and keeps every comment.
# Run \`yagent setup\` to fill in a provider interactively.

[global.llm]
use_provider = "openai"          # the provider every agent uses unless overridden below

[global.llm.providers.openai]
api_format = "openai"            # "openai" (any OpenAI-compatible server: Ollama, vLLM, llama.cpp) or "anthropic"
api_base_url = "https://api.openai.com/v1"
model = "gpt-4o-mini"            # required
api_key = "${PLACEHOLDER_API_KEY}"
# api_key_env = "OPENAI_API_KEY" # read the key from this environment variable instead (expanded once at start)
# context_window = 128000        # the model's window: compression starts at 0.75 of it (default: what a local server says, else the catalogue)
# temperature = 0.3              # 0 = not set (the field is omitted)
# max_tokens = 8000              # 0 = not set
# reasoning_effort = "medium"    # openai: passed through; anthropic: thinking budget 1024/8192/24576/32000
# fallback_providers = ["local", { provider = "other", weight = 2 }]

# [global.llm.providers.local]
# api_base_url = "http://localhost:11434/v1"
# model = "qwen2.5-coder"
# (no api_key: a server on loopback needs none)

# [agents.llm]                   # per-agent providers: director coding repo chat devops browser meta
# coding.use_provider = "openai"
# [tools.llm]                    # per-tool providers; compression (the tier-2 summary) is the one tool with a model of its own
# compression.use_provider = "local"

[agent]
director_max_steps = 100
coding_max_steps = 150
repo_max_steps = 50
chat_max_steps = 50
devops_max_steps = 50
browser_max_steps = 200
delegate_idle_timeout = "60s"
delegate_total_timeout = "20m"
max_parallel_readonly_tools = 4  # 1 = strictly serial, <= 0 = default 4, > 8 clamped to 8
max_parallel_delegations = 2     # same convention
lang = "English"                 # language the models write fields in

[llm]
timeout = "300s"                 # per attempt; queueing for a slot does not count
call_budget = "120s"             # longest one model call may take, every retry and backoff included ("0" = no budget); raise it for slow local or reasoning models
stream_idle_timeout = "60s"      # no byte from the server this long ends the attempt as an error, not a wait ("0" = off); raise it for a slow local model that takes long before its first token
max_answer_chars = 1000000       # longest one streamed answer (text, reasoning and tool arguments): past it the read stops and the call fails
max_retries = 5                  # exponential backoff capped at 30s, honouring Retry-After
step_retries = 2                 # every agent's loop retries a failed step this often (0 = the first failure ends the run)
enable_fallback = true
fallback_max_retries = 2
max_in_flight_requests = 8       # process-wide; 0 here means unlimited
circuit_breaker_threshold = 0    # 0 = off; > 0 consecutive failures open the breaker
# circuit_breaker_cooldown = "30s"
# [llm.prices.llama3]            # USD per million tokens of one model for the cost estimate, beating the bundled prices
#                                # (local models have none); quote ids with dots: [llm.prices."qwen2.5-coder"]
# input = 0.0
# output = 0.0
# cached_input = 0.0             # absent = the input price

[routing]
mode = "auto"                    # auto = a fast model picks fast|balanced|high per turn (only when the tiers name 2+ distinct providers); fixed = use_provider only
# classifier_timeout = "30s"     # the classifier's deadline; on a miss the role's baseline tier is used
# [routing.tiers]                # provider per tier (a tier without one uses the agent's use_provider)
# fast = "local"
# balanced = "openai"
# high = "openai"
[routing.baselines]              # tier used when the classifier fails or times out
coding = "high"
repo = "balanced"

# context compression (three tiers: rule, emergency summary, rebuild from plans)
[enhanced_commander]
enable_context_compression = true  # the only compression switch
# context_compression_threshold = 120000  # min(catalogue context x 0.75, this); default 120000
tool_result_keep_tokens = 200    # tier 1 cuts an old tool result down to this many tokens
enable_ultimate_compression = true  # tier 3 (rebuild from the thinklink plans)
ultimate_compression_keep_plans = 3  # plans tier 3 keeps; 0 = keep all

[blackboard]
index_max_notes = 12             # 0 = no index injection; negative/absent = default
index_line_chars = 160           # 0 = lines are not trimmed
ttl = "168h"                     # notes older than this are removed by the store's GC (at start, then hourly); "0" or 0 = never
summary_max_runes = 1200         # reserved (handoff summaries): read by nothing yet
max_notes_per_board = 200        # the store's GC keeps the newest this many per board; 0/negative = default
# no enabled key: YAGENT_BLACKBOARD=0 turns the blackboard off

# without -y yagent asks before a tool touches anything outside the workspace; run_bash also runs in an OS
# sandbox (bubblewrap, Linux): the data root and secret stores hidden, writes only in the workspace and a temp dir
[security]
allow_read = []                  # e.g. ["~/.ssh/config"]: data-root / secret-store paths tools may read (still asked; -y skips asking)
shell_env_keep = []              # e.g. ["GITHUB_TOKEN"]: variables run_bash still sees although secret-looking or named by an api_key_env
sandbox = "auto"                 # "auto": run_bash under bubblewrap where it works (start-up says so where not); "off": the word check only
sandbox_writable = []            # e.g. ["~/.npm", "~/.cache"]: places outside the workspace run_bash may write in the sandbox

# The Browser agent drives a headless Chromium/Chrome over the DevTools protocol on a pipe (no TCP port).
# Without an executable it is unavailable and delegate_browser says how to fix that.
[browser]
enable = true                    # false = no Browser agent (like -d browser)
# executable = "/usr/bin/chromium"  # absolute path or a command on PATH; default: chromium, chromium-browser,
#                                   # google-chrome, google-chrome-stable, the first one found on PATH

[logs]                           # ~/.yagent/logs/{app,llm,llm-error,tool,delegate}-YYYY-MM-DD.jsonl, every line redacted
keep_days = 7                    # files older than this are removed; 0 = keep every file
max_file_mb = 10                 # a day's file continues in .1, .2, ... past this size

[undo]                           # ~/.yagent/undo/<workspace>/: a snapshot before each write delegation and turn (yagent undo)
enable = true                    # false = no snapshots (nothing to undo)
keep_days = 7                    # older undo points are dropped; 0 = keep every point
max_mb = 1024                    # the oldest points go while the snapshots take more; 0 = no cap

# checkpoint replay (B), degraded handoff (C), restart of crashed delegations; YAGENT_RESUME=0 turns it all off
[resume]
enable = true                    # false = no checkpoints, no replay (interrupted delegations hand over a report)
replay_token_budget = 0          # reserved (replay budget): read by nothing yet
max_replay_messages = 2000       # a longer replay degrades to a handoff report; 0 = unlimited
degrade_on_workspace_change = true  # a delegation resumed onto a changed workspace (HEAD, branch, its files) gets a report
checkpoint_workspace = true      # checkpoints record HEAD, branch and a digest of the files the run touched
max_restarts = 2                 # restarts of a crashed delegation (it continues from its rollout); then a report

# The repository blueprint: structure derived from the code each run + prose the Repo agent keeps
# (data/blueprint/). YAGENT_BLUEPRINT=0 turns it off. export_path = "docs/BLUEPRINT.md" (relative, .md) also
# writes it into that workspace file after each Repo fold, between marker comments (the rest of the file is kept).
[blueprint]
enable = true
inject_into = ["director", "repo"]
index_max_tokens = 800
prose_budget_tokens = 2000

# Skills: folders with a SKILL.md (front matter name + description) under ~/.yagent/skills/,
# <workspace>/.yagent/skills/ and <workspace>/.claude/skills/. YAGENT_SKILLS=0 turns them off.
[skills]
enable = true
agents = ["director", "coding", "repo", "devops"]   # who sees the catalogue and use_skill

# MCP servers: one [[mcp.servers]] table each (stdio: command + args; Streamable HTTP: url). Their tools are
# cold (listed, loaded with load_tool) and named mcp__<server>__<tool>. YAGENT_MCP=0 turns MCP off.
# [[mcp.servers]]
# name = "fs"
# command = "npx"
# args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
# env = { LOG_LEVEL = "warn" }     # added to a small safe environment (never your API keys)
# agents = ["coding", "repo", "devops"]
# allow_write = false              # true: non-destructive write tools run without asking
# startup_timeout = "10s"
# tool_timeout = "60s"             # progress notifications from the server reset it
# [[mcp.servers]]
# name = "web"
# url = "http://127.0.0.1:3001/mcp"
# bearer_token_env = "WEB_MCP_TOKEN"
`;
