import Foundation

/// The backend configuration (`evalbench.json`): which backends exist and run defaults.
public struct Config: Sendable, Codable, Equatable {
    /// The file the config was loaded from, or nil for the built-in default.
    public var file: String?
    public var backends: [BackendConfig]
    public var defaults: RunDefaults

    public init(file: String? = nil, backends: [BackendConfig], defaults: RunDefaults = RunDefaults()) {
        self.file = file
        self.backends = backends
        self.defaults = defaults
    }

    public func backend(named name: String) -> BackendConfig? {
        backends.first { $0.name == name }
    }
}

/// Run settings that apply unless the command line overrides them.
public struct RunDefaults: Sendable, Codable, Equatable {
    /// Requests in flight at once across all backends.
    public var concurrency: Int
    /// Per-request timeout, from handing the request to the transport to the end of the stream.
    public var timeoutSeconds: Double
    /// Retries after the first attempt, for retryable error kinds only.
    public var retries: Int
    /// Backends a run uses when no `--backend` is given; nil means every configured backend.
    public var backends: [String]?
    /// Reasoning levels a run uses when neither `--reasoning` nor the suite names any; nil means `none`.
    public var reasoning: [ReasoningLevel]?

    public init(concurrency: Int = 4, timeoutSeconds: Double = 120, retries: Int = 3,
                backends: [String]? = nil, reasoning: [ReasoningLevel]? = nil) {
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.retries = retries
        self.backends = backends
        self.reasoning = reasoning
    }
}

/// One configured backend. Fields a kind does not use are rejected at load time.
public struct BackendConfig: Sendable, Codable, Equatable {
    public var name: String
    /// `openai`, `llama-server`, `anthropic`, `gemini`, `apple-system`, `apple-pcc` or `replay`.
    public var kind: String
    /// The model name sent to the server and shown in reports.
    public var model: String?
    /// Base URL of an HTTP API, e.g. `http://127.0.0.1:8080/v1`.
    public var baseURL: String?
    /// The name of the environment variable that holds the API key (never the key itself).
    public var apiKeyEnv: String?
    /// llama-server: the GGUF model file (`~` is expanded).
    public var modelPath: String?
    /// The model's context window in tokens (llama-server: passed as `-c`).
    public var contextSize: Int?
    /// llama-server: a Jinja chat template file passed as `--chat-template-file`.
    public var chatTemplateFile: String?
    /// llama-server: the binary; default from `EVALBENCH_LLAMA_SERVER`, then the setup cache, then PATH.
    public var serverPath: String?
    /// llama-server: extra command-line arguments.
    public var arguments: [String]?
    /// Requests in flight at once on this backend.
    public var concurrency: Int?
    /// Overrides `defaults.timeoutSeconds` for this backend.
    public var timeoutSeconds: Double?
    /// Extra HTTP headers (values must not be secrets; use `apiKeyEnv`).
    public var headers: [String: String]?
    /// OpenAI-compatible: whether to send `reasoning_effort: "none"` for level `none`
    /// (some servers reject it). Default false: the field is omitted for `none`.
    public var sendReasoningNone: Bool?
    /// Prices in US dollars; absent means cost is unknown (empty), not zero, except for the
    /// kinds that cost no money (see `chargedPricing`).
    public var pricing: Pricing?
    /// Per-level overrides of the kind's reasoning mapping, keyed by level name.
    public var reasoning: [String: ReasoningOverride]?
    /// Fields merged into every request body (server-specific options such as llama.cpp's
    /// `chat_template_kwargs` or vLLM's `thinking_token_budget`).
    public var extraBody: [String: JSONValue]?
    /// OpenAI-compatible: the name of the output-token limit field, `max_tokens` (default) or
    /// `max_completion_tokens` (OpenAI's reasoning models need it).
    public var maxTokensField: String?
    /// How a case's `output` schema is sent: `native` (default) or `prompt`.
    public var structuredOutput: StructuredOutputMode?
    /// Anthropic: `auto` (default) puts `cache_control` breakpoints on the instructions and the
    /// newest message; `off` sends none.
    public var promptCache: String?
    /// apple-pcc: the apple-system backend that answers a request PCC could not reach; each
    /// such answer is recorded as a fallback.
    public var fallback: String?
    /// Apple kinds: call `prewarm(promptPrefix:)` on each new session (recorded as warm or cold).
    public var prewarm: Bool?
    /// replay: the earlier run's directory whose results.jsonl answers the requests (resolved
    /// against the config's directory; checked to exist at load).
    public var from: String?

    public init(name: String, kind: String, model: String? = nil, baseURL: String? = nil,
                apiKeyEnv: String? = nil, modelPath: String? = nil, contextSize: Int? = nil,
                chatTemplateFile: String? = nil, serverPath: String? = nil, arguments: [String]? = nil,
                concurrency: Int? = nil, timeoutSeconds: Double? = nil, headers: [String: String]? = nil,
                sendReasoningNone: Bool? = nil, pricing: Pricing? = nil,
                reasoning: [String: ReasoningOverride]? = nil, extraBody: [String: JSONValue]? = nil,
                maxTokensField: String? = nil, promptCache: String? = nil,
                structuredOutput: StructuredOutputMode? = nil, fallback: String? = nil,
                prewarm: Bool? = nil, from: String? = nil) {
        self.from = from
        self.name = name
        self.kind = kind
        self.model = model
        self.baseURL = baseURL
        self.apiKeyEnv = apiKeyEnv
        self.modelPath = modelPath
        self.contextSize = contextSize
        self.chatTemplateFile = chatTemplateFile
        self.serverPath = serverPath
        self.arguments = arguments
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.headers = headers
        self.sendReasoningNone = sendReasoningNone
        self.pricing = pricing
        self.reasoning = reasoning
        self.extraBody = extraBody
        self.maxTokensField = maxTokensField
        self.promptCache = promptCache
        self.structuredOutput = structuredOutput
        self.fallback = fallback
        self.prewarm = prewarm
    }
}

extension BackendConfig {
    /// The kinds whose requests cost no money: the on-device model, Private Cloud Compute
    /// (free in dollars; it spends the user's daily request quota instead) and a llama-server
    /// evalbench runs on this machine.
    public static let freeKinds: Set<String> = ["apple-system", "apple-pcc", "llama-server"]

    /// The prices its requests are charged at: the configured `pricing`; else `Pricing.free`
    /// for the free kinds; else nil, so the cost of a cloud backend without prices stays
    /// unknown (empty), never 0.
    public var chargedPricing: Pricing? {
        pricing ?? (Self.freeKinds.contains(kind) ? .free : nil)
    }
}

/// A backend's prices per million tokens, and optionally per request, in US dollars.
public struct Pricing: Sendable, Codable, Equatable {
    /// Uncached input tokens.
    public var inputPerMTok: Double?
    /// Input tokens read from the prompt cache; the input price when absent.
    public var cachedInputPerMTok: Double?
    /// Input tokens written to the prompt cache; the input price when absent.
    public var cacheWritePerMTok: Double?
    public var outputPerMTok: Double?
    public var perRequest: Double?

    /// No charge for anything: what the free kinds cost.
    public static let free = Pricing(perRequest: 0)

    public init(inputPerMTok: Double? = nil, cachedInputPerMTok: Double? = nil,
                cacheWritePerMTok: Double? = nil, outputPerMTok: Double? = nil, perRequest: Double? = nil) {
        self.inputPerMTok = inputPerMTok
        self.cachedInputPerMTok = cachedInputPerMTok
        self.cacheWritePerMTok = cacheWritePerMTok
        self.outputPerMTok = outputPerMTok
        self.perRequest = perRequest
    }
}
