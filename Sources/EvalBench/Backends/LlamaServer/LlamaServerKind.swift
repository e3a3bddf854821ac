import Foundation

/// Kind `llama-server`: a llama.cpp server evalbench starts on this machine, and one
/// backend's options. Starting a process needs macOS or Linux; elsewhere (iOS, visionOS) the
/// backend is unavailable here, and its case runs are skipped with the reason.
public struct LlamaServerKind: BackendKind {
    /// The config's `kind` value, `llama-server`.
    public static let name = "llama-server"
    /// The keys a `llama-server` backend accepts; `modelPath` is required.
    public static let keys: [ConfigKey] = [
        .model, ConfigKey("modelPath", .filePath, required: true), .contextSize,
        ConfigKey("chatTemplateFile", .filePath), ConfigKey("serverPath", .filePath), ConfigKey("arguments", .strings),
        .concurrency, .timeoutSeconds, .sendReasoningNone, .reasoning, .extraBody, .structuredOutput, .prewarm, .pricing,
    ]
    /// A server on this machine costs no money.
    public static let costsMoney = false
    /// evalbench starts the server on this machine.
    public static let placement = BackendPlacement.thisMachine
    /// The OpenAI-compatible rules: no `thinkingBudget` (send the server's field through `extraBody`).
    public static let reasoningRules = OpenAIKind.reasoningRules

    /// The GGUF model file (`~` expanded).
    public var modelPath: String
    /// A Jinja chat template file passed as `--chat-template-file`.
    public var chatTemplateFile: String?
    /// The binary; default from `EVALBENCH_LLAMA_SERVER`, then the setup cache, then PATH.
    public var serverPath: String?
    /// Extra command-line arguments.
    public var arguments: [String]?
    /// Whether to send `reasoning_effort: "none"` for level `none`; false when nil.
    public var sendReasoningNone: Bool?
    /// Fields merged into every request body.
    public var extraBody: [String: JSONValue]?
    /// How a case's `output` schema is sent; `native` (`response_format` `json_schema`, which
    /// llama.cpp turns into a grammar) when nil.
    public var structuredOutput: StructuredOutputMode?

    /// The options of a `llama-server` backend; nil fields take the defaults above.
    public init(modelPath: String, chatTemplateFile: String? = nil, serverPath: String? = nil,
                arguments: [String]? = nil, sendReasoningNone: Bool? = nil, extraBody: [String: JSONValue]? = nil,
                structuredOutput: StructuredOutputMode? = nil) {
        self.modelPath = modelPath
        self.chatTemplateFile = chatTemplateFile
        self.serverPath = serverPath
        self.arguments = arguments
        self.sendReasoningNone = sendReasoningNone
        self.extraBody = extraBody
        self.structuredOutput = structuredOutput
    }

    /// The options from the loader's values for `keys`; nil when `modelPath` is missing.
    public init?(_ values: ConfigValues) {
        guard let modelPath = values.string("modelPath") else { return nil }
        self.init(modelPath: modelPath, chatTemplateFile: values.string("chatTemplateFile"),
                  serverPath: values.string("serverPath"), arguments: values.strings("arguments"),
                  sendReasoningNone: values.bool("sendReasoningNone"), extraBody: values.object("extraBody"),
                  structuredOutput: values.string("structuredOutput").flatMap(StructuredOutputMode.init(rawValue:)))
    }

    /// A managed llama-server backend on macOS and Linux; elsewhere one that is unavailable here,
    /// with the reason.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        #if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
        return LlamaServerBackend(config: config, options: self, context: context)
        #else
        return UnavailableBackend(config: config, here: true,
                                  reason: "\(config.name): llama-server needs macOS or Linux, where evalbench can start the server process; this platform cannot")
        #endif
    }

    /// `modelPath` and, those that are set, `chatTemplateFile`, `arguments`, `extraBody`,
    /// `sendReasoningNone` and `structuredOutput`; `serverPath` is left out, so another build of the
    /// server on the same model shares answers.
    public var cacheIdentity: [String: JSONValue] {
        var parts: [String: JSONValue] = ["modelPath": .string(modelPath)]
        if let chatTemplateFile { parts["chatTemplateFile"] = .string(chatTemplateFile) }
        if let arguments { parts["arguments"] = .array(arguments.map(JSONValue.string)) }
        if let extraBody { parts["extraBody"] = .object(extraBody) }
        if let sendReasoningNone { parts["sendReasoningNone"] = .bool(sendReasoningNone) }
        if let structuredOutput { parts["structuredOutput"] = .string(structuredOutput.rawValue) }
        return parts
    }
}

extension LlamaServerKind {
    /// The example `evalbench init` writes into evalbench.examples.json.
    public static var example: String? {
        #"{ "name": "local", "kind": "llama-server", "model": "gemma-3-270m", "modelPath": "~/.cache/evalbench/models/gemma-3-270m-q4_k_m.gguf", "contextSize": 4096, "chatTemplateFile": "evals/qa-chat-template.jinja", "concurrency": 2 }"#
    }
}
