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
# context_window = 128000        # reserved (TUI context bar, later issue): read by nothing yet; the compression threshold comes from the model catalogue
# temperature = 0.3              # 0 = not set (the field is omitted)
# max_tokens = 8000              # 0 = not set
# reasoning_effort = "medium"    # openai: passed through; anthropic: thinking budget 1024/8192/24576/32000
# fallback_providers = ["local", { provider = "other", weight = 2 }]

# [global.llm.providers.local]
# api_base_url = "http://localhost:11434/v1"
# model = "qwen2.5-coder"
# api_key = "ollama"

# [agents.llm]                   # per-agent providers: director coding repo chat devops browser meta
# coding.use_provider = "openai"
# [tools.llm]                    # per-tool providers (micro_agent, thinking, deepthinking, design)
# micro_agent.use_provider = "local"

[agent]
director_max_steps = 100
coding_max_steps = 150
repo_max_steps = 50
chat_max_steps = 50
devops_max_steps = 50
browser_max_steps = 200          # reserved (Browser agent, later issue)
delegate_idle_timeout = "60s"
delegate_total_timeout = "20m"
max_parallel_readonly_tools = 4  # 1 = strictly serial, <= 0 = default 4, > 8 clamped to 8
max_parallel_delegations = 2     # same convention
lang = "English"                 # language the models write fields in

[llm]
timeout = "300s"                 # per request; queueing for a slot does not count
max_retries = 5                  # exponential backoff capped at 30s, honouring Retry-After
step_retries = 2                 # every agent's loop retries a failed step this often (0 = the first failure ends the run)
enable_fallback = true
fallback_max_retries = 2
max_in_flight_requests = 8       # process-wide; 0 here means unlimited
circuit_breaker_threshold = 0    # 0 = off; > 0 consecutive failures open the breaker
# circuit_breaker_cooldown = "30s"

[routing]
mode = "auto"                    # auto = a fast model picks fast|balanced|high per turn; fixed = use_provider only
# classifier_timeout = "30s"     # the classifier's deadline; on a miss the role's baseline tier is used
# [routing.tiers]                # provider per tier (a tier without one uses the agent's use_provider)
# fast = "local"
# balanced = "openai"
# high = "openai"
[routing.baselines]              # tier used when the classifier fails or times out
coding = "high"
repo = "balanced"

# reserved (context compression, later issue): nothing compresses yet, so no key of this section changes anything
[enhanced_commander]
enable_context_compression = true  # the only compression switch
# context_compression_threshold = 120000  # min(catalogue context x 0.75, this); default 120000
tool_result_keep_tokens = 200
enable_ultimate_compression = true
ultimate_compression_keep_plans = 3  # 0 = keep all

[blackboard]
index_max_notes = 12             # 0 = no index injection; negative/absent = default
index_line_chars = 160           # 0 = lines are not trimmed
ttl = "168h"                     # notes older than this are removed by the store's GC (at start, then hourly); "0" or 0 = never
summary_max_runes = 1200         # reserved (handoff summaries): read by nothing yet
max_notes_per_board = 200        # the store's GC keeps the newest this many per board; 0/negative = default
# no enabled key: YAGENT_BLACKBOARD=0 turns the blackboard off

# checkpoint replay (B), degraded handoff (C), restart of crashed delegations; YAGENT_RESUME=0 turns it all off
[resume]
enable = true                    # false = no checkpoints, no replay (interrupted delegations hand over a report)
replay_token_budget = 0          # reserved (replay budget): read by nothing yet
max_replay_messages = 2000       # a longer replay degrades to a handoff report; 0 = unlimited
degrade_on_workspace_change = "warn"  # reserved (workspace facts in checkpoints): warn | block
checkpoint_workspace = true      # reserved (workspace facts in checkpoints)
max_restarts = 2                 # restarts of a crashed delegation (it continues from its rollout); then a report

# reserved (repository blueprint, later issue): no key of this section changes anything yet
[blueprint]
enable = true
inject_into = ["director", "repo"]
index_max_tokens = 800
prose_budget_tokens = 2000
`;
