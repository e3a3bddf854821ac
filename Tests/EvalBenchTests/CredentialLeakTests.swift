import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private let suite = #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "q"}]}"#

private func problems(backend: String) throws -> [Diagnostic] {
    let fixture = try RunFixture("credentials", suite: suite, config: #"{ "backends": [\#(backend)] }"#)
    defer { fixture.remove() }
    return fixture.loadDiagnostics()
}

@Suite("Credentials never reach run.json, results or reports", .serialized)
struct CredentialLeakTests {
    @Test("a baseURL with user:password@ is refused at load, without repeating the password, with the fix")
    func userInfoInURL() throws {
        let found = try problems(backend: #"{ "name": "b", "kind": "openai", "baseURL": "https://me:hunter2-pass@api.example.com/v1" }"#)
        let diagnostic = try #require(found.first)
        #expect(diagnostic.message.contains("user:password@"))
        #expect(!diagnostic.description.contains("hunter2"))
        #expect(diagnostic.fix?.contains("apiKeyEnv") == true)
        #expect(diagnostic.location != nil)
    }

    @Test("a baseURL with ?key= is refused at load, naming the parameter but not its value")
    func keyInQuery() throws {
        let found = try problems(backend: #"{ "name": "b", "kind": "openai", "baseURL": "https://api.example.com/v1?key=AIzaSyA-secret-0123456789" }"#)
        let diagnostic = try #require(found.first)
        #expect(diagnostic.message.contains("query parameter 'key'"))
        #expect(!diagnostic.description.contains("AIzaSy"))
        #expect(try problems(backend: #"{ "name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1?api-version=2024-06-01" }"#).isEmpty,
                "a query parameter that is not a secret is fine")
    }

    @Test("a literal header value that looks like a secret is refused under any name; version and beta headers are not")
    func secretInUnusualHeader() throws {
        let found = try problems(backend: """
        { "name": "b", "kind": "anthropic", "model": "m", "apiKeyEnv": "K",
          "headers": { "X-Gateway-Auth": "sk-live-0123456789abcdef", "X-Org": "Bearer abcdefgh", "anthropic-beta": "prompt-caching-2024-07-31",
                       "X-Trace": "9f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f" } }
        """)
        let headers = found.filter { $0.message.contains("looks like a secret") }
        #expect(headers.count == 2, "\(found)")
        #expect(headers.allSatisfy { !$0.description.contains("0123456789abcdef") && $0.location != nil })
        #expect(LiteralSecret.looksLikeSecret("AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"))
        #expect(!LiteralSecret.looksLikeSecret("2023-06-01"))
    }

    @Test("a key under a harmless name in extraBody, or after --api-key in a server's arguments, is refused at load without its value")
    func keyOutsideHeaders() throws {
        let key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345"
        let inBody = try problems(backend: #"{ "name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1", "model": "m", "extraBody": {"metadata": {"note": "\#(key)"}} }"#)
        let body = try #require(inBody.first, "\(inBody)")
        #expect(inBody.count == 1 && body.message.contains("looks like a secret") && body.location != nil, "\(inBody)")
        #expect(body.path?.description.hasSuffix("extraBody.metadata.note") == true, "\(body)")
        for arguments in [#"["--api-key", "\#(key)"]"#, #"["--port", "8080", "--api-key=\#(key)"]"#, #"["--hf-token", "hf_abcdefghijklmnop"]"#] {
            let found = try problems(backend: #"{ "name": "l", "kind": "llama-server", "model": "m", "modelPath": "/nonexistent/model.gguf", "arguments": \#(arguments) }"#)
            let argument = found.filter { $0.message.contains("would put a secret in the config file") }
            // The managed server listens on 127.0.0.1 and is sent no key; a download token goes in the environment.
            let fix = arguments.contains("hf-token") ? "HF_TOKEN" : "needs no key"
            #expect(argument.count == 1 && argument[0].fix?.contains(fix) == true, "\(arguments): \(found)")
            #expect(found.allSatisfy { !$0.description.contains(key) && !$0.description.contains("hf_abcdefghijklmnop") }, "\(found)")
        }
        // Paths, model names, options that name files, and an option after a bare one are not keys.
        let fine = try problems(backend: #"{ "name": "l", "kind": "llama-server", "model": "m", "modelPath": "hf_models/gemma-3-270m-it.gguf", "arguments": ["--api-key-file", "/run/keys/llama", "--ssl-key-file", "k.pem", "-c", "4096", "--hf-token", "--port", "8080"], "extraBody": {"note": "Token budgets matter"} }"#)
        #expect(!fine.contains { $0.message.contains("secret") }, "\(fine)")
        #expect(LiteralSecret.looksLikeKey("Bearer abcdefghijklmnop") && !LiteralSecret.looksLikeKey("Token budget"))
        #expect(!LiteralSecret.looksLikeKey("hf_models/llama-3-8b.gguf") && !LiteralSecret.looksLikeKey("hf_llama-3-8b-q4.gguf"))
    }

    @Test("the llama-server evalbench starts does not inherit LLAMA_API_KEY, which would make it refuse evalbench's requests")
    func managedServerEnvironment() {
        let environment = LlamaServerBackend.serverEnvironment(["LLAMA_API_KEY": "k", "HF_TOKEN": "t", "PATH": "/usr/bin"])
        #expect(environment == ["HF_TOKEN": "t", "PATH": "/usr/bin"])
    }

    @Test("the redactor removes URL credentials, query values and secret-looking values of any header")
    func redactorCoversURLsAndHeaders() throws {
        let url = try #require(URL(string: "https://user:pa55word-x@api.example.com/v1?key=AIzaSecretValue123&alt=sse"))
        let redactor = SecretRedactor(HTTPStreamRequest(url: url, headers: ["X-Gateway-Auth": "sk-live-0123456789abcdef",
                                                                           "X-Portkey-Key": "plainlongvalue"]))
        let echoed = "user pa55word-x sent AIzaSecretValue123 with sk-live-0123456789abcdef and plainlongvalue"
        let redacted = redactor.redact(echoed)
        for secret in ["pa55word-x", "AIzaSecretValue123", "sk-live-0123456789abcdef", "plainlongvalue"] {
            #expect(!redacted.contains(secret), "\(secret) in \(redacted)")
        }
        #expect(redacted.contains("[redacted]"))
    }

    @Test("an error event after 200 that echoes the API key is redacted in results.jsonl")
    func streamErrorEvent() async throws {
        let key = "sk-stream-echo-0123456789"
        let server = FakeOpenAIServer(replies: [.init(steps: [.content("partial")],
                                                      fault: .errorEventAfter(steps: 1, message: "bad key \(key)", type: "server_error", code: nil))])
        try server.start()
        defer { server.stop() }
        let backend = OpenAIBackend(name: "o", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"), apiKey: key,
                                    concurrency: 1, transport: URLSessionStreamTransport())
        let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "hi")],
                                   options: GenerationOptions(), timeoutSeconds: 10)
        let result = await backend.startConversation().respond(to: request)
        guard case let .failure(failure) = result else {
            Issue.record("an error event is a failure")
            return
        }
        #expect(!failure.message.contains(key))
        #expect(failure.message.contains("[redacted]"))
    }
}

@Suite("The response cache and Swift-built configs", .serialized)
struct CacheAndValueLimitTests {
    @Test("an answer that repeats the API key is cached redacted: the key never lands in the cache directory")
    func cacheHoldsNoKey() async throws {
        let key = "sk-cache-echo-0123456789"
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("your key is \(key)")]) }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("cache-secret")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let backend = OpenAIBackend(name: "o", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"), apiKey: key,
                                    concurrency: 1, transport: URLSessionStreamTransport())
        let store = try ResultStore(url: directory.appendingPathComponent("results.jsonl"))
        var runner = Runner(backends: ["o": backend], store: store, concurrency: 1, timeoutSeconds: 10, retryPolicy: RetryPolicy(maxRetries: 0))
        let cacheDirectory = directory.appendingPathComponent("cache")
        runner.cache = ResponseCache(directory: cacheDirectory)
        let suite = Suite(name: "s", file: "s.json", cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])])
        await runner.run(Planner.plan([suite], PlanSelection(backends: ["o"])), availability: ["o": .available])
        try store.close()
        let files = try FileManager.default.subpathsOfDirectory(atPath: cacheDirectory.path)
        #expect(!files.isEmpty, "the answer was cached")
        for file in files {
            let data = (try? Data(contentsOf: cacheDirectory.appendingPathComponent(file))) ?? Data()
            #expect(!String(decoding: data, as: UTF8.self).contains(key), "\(file) holds the key")
        }
    }

    @Test("a config built in Swift with timeoutSeconds 1e300 is refused like one read from a file")
    func swiftConfigLimits() {
        var config = Config(backends: [])
        config.defaults.timeoutSeconds = 1e300
        let found = loadDiagnostics { () throws(LoadError) in try ConfigChecks.check(config) }
        #expect(found.first?.path == "$.defaults.timeoutSeconds")
        #expect(found.first?.fix != nil)
    }

    @Test("a config built in Swift with a credential in a literal header or the baseURL is refused like one read from a file")
    func swiftConfigPlainSight() {
        let secret = "sk-proj-0123456789abcdef"
        let config = Config(backends: [
            BackendConfig(name: "a", model: "m", options: OpenAIKind(baseURL: "https://gw.example/v1?key=abc12345",
                                                                   headers: ["X-Title": "demo", "Authorization": "Bearer \(secret)"])),
            BackendConfig(name: "b", model: "m", options: AnthropicKind(headers: ["X-Token-Less": secret, "X-Team": "a", "x-team": "b"])),
            BackendConfig(name: "c", model: "m", options: GeminiKind(headers: ["X-Line": "a\r\nX-Injected: 1"])),
        ])
        let found = loadDiagnostics { () throws(LoadError) in try ConfigChecks.check(config) }
        let paths = Set(found.compactMap(\.path))
        #expect(paths == ["$.backends[0].baseURL", "$.backends[0].headers.Authorization", "$.backends[1].headers.X-Token-Less",
                          "$.backends[1].headers.x-team", "$.backends[2].headers.X-Line"], "\(found)")
        #expect(found.allSatisfy { !$0.description.contains(secret) && !$0.description.contains("abc12345") }, "never quoting the value")
        let plain = Config(backends: [BackendConfig(name: "a", model: "m", options: OpenAIKind(baseURL: "https://x.openai.azure.com/v1?api-version=2024-10-21",
                                                                                             headers: ["X-Title": "demo"]))])
        #expect(loadDiagnostics { () throws(LoadError) in try ConfigChecks.check(plain) }.isEmpty)
    }

    @Test("a config built in Swift with a key in extraBody is refused like one read from a file, without its value")
    func swiftConfigKeyInBody() {
        let secret = "sk-proj-0123456789abcdef"
        let config = Config(backends: [
            BackendConfig(name: "a", model: "m", options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1", extraBody: ["metadata": .object(["note": .string(secret)])])),
            BackendConfig(name: "b", model: "m", options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1", extraBody: ["note": .string("Token budgets matter")])),
        ])
        let found = loadDiagnostics { () throws(LoadError) in try ConfigChecks.check(config) }
        #expect(found.map(\.path) == ["$.backends[0].extraBody.metadata.note"], "\(found)")
        #expect(found.allSatisfy { !$0.description.contains(secret) && $0.location == nil })
    }
}

@Suite("headersFromEnv: a credential header of one's own, from the environment")
struct HeadersFromEnvironmentTests {
    @Test("headersFromEnv sends the variable's value under its header name, and the value is redacted from what comes back")
    func headerFromEnvironment() async throws {
        let secret = "gw-0123456789"
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(fault: .openAIError(status: 401, message: "bad gateway key \(secret)", type: "auth", code: nil)) }
        try server.start()
        defer { server.stop() }
        let suite = #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "q"}]}"#
        let fixture = try RunFixture("headers-from-env", suite: suite, config: """
        {"backends": [{"name": "g", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1",
                       "headersFromEnv": {"X-Gateway-Key": "GATEWAY_KEY"}}], "defaults": {"retries": 0}}
        """)
        defer { fixture.remove() }
        var request = fixture.request()
        request.environment = ["GATEWAY_KEY": secret]
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(server.requests.first?.http.headers["x-gateway-key"] == secret)
        let message = try #require(outcome.results.first?.errorMessage)
        #expect(!message.contains(secret) && message.contains("[redacted]"), "\(message)")
        let written = try String(contentsOf: RunDirectory(outcome.outputDirectory).results, encoding: .utf8)
            + String(contentsOf: RunDirectory(outcome.outputDirectory).metadata, encoding: .utf8)
        #expect(!written.contains(secret))
    }

    @Test("a headersFromEnv value that is not a variable name is refused like a literal key")
    func literalInHeadersFromEnv() throws {
        let fixture = try RunFixture("headers-from-env-literal",
                                     suite: #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "q"}]}"#,
                                     config: #"{"backends": [{"name": "g", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1", "headersFromEnv": {"X-Key": "sk-abc-123"}}]}"#)
        defer { fixture.remove() }
        let found = fixture.loadDiagnostics()
        #expect(found.first?.message.contains("must be the name of an environment variable") == true)
        #expect(found.first.map { !$0.description.contains("sk-abc-123") } == true)
    }
}

@Suite("What the config writes in plain sight is not a secret")
struct PublicRequestPartsTests {
    private let gateway = "gw-0123456789"

    /// One case against a fake that answers `answer`, on an `openai` backend at `query` with
    /// `headers` (JSON members) and `X-Gateway-Key` from the environment: the answer recorded
    /// and the headers the fake received (names lowercased).
    private func run(answer: String, query: String = "", headers: String) async throws -> (output: String?, sent: [String: String]) {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content(answer)]) }
        try server.start()
        defer { server.stop() }
        let fixture = try RunFixture("public-parts", suite: #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "q"}]}"#, config: """
        {"backends": [{"name": "g", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1\(query)", "headers": {\(headers)},
                       "headersFromEnv": {"X-Gateway-Key": "GATEWAY_KEY"}}], "defaults": {"retries": 0}}
        """)
        defer { fixture.remove() }
        var request = fixture.request()
        request.environment = ["GATEWAY_KEY": gateway]
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        return (outcome.results.first?.output, server.requests.first?.http.headers ?? [:])
    }

    @Test("an answer quoting a literal header or a query value of the baseURL is kept; a headersFromEnv value is still redacted")
    func literalPartsAreKept() async throws {
        let (output, sent) = try await run(answer: "Released 2024-10-21 by evalbench-demo-app, key \(gateway)", query: "?api-version=2024-10-21",
                                           headers: #""X-Title": "evalbench-demo-app""#)
        #expect(sent["x-title"] == "evalbench-demo-app")
        #expect(output == "Released 2024-10-21 by evalbench-demo-app, key [redacted]", "\(String(describing: output))")
    }

    @Test("a header the config sets and headersFromEnv sets again is a secret")
    func environmentWins() async throws {
        let (output, sent) = try await run(answer: "key \(gateway)", headers: #""x-gateway-key": "placeholder-value""#)
        #expect(sent["x-gateway-key"] == gateway)
        #expect(output == "key [redacted]")
    }
}

@Test("a header in both headers and headersFromEnv, in any case, is sent once, with the environment's value, and is not public")
func headerNamedTwiceIsSentOnce() throws {
    let context = BackendContext(environment: ["GATEWAY_KEY": "gw-0123456789"], transport: URLSessionStreamTransport(),
                                 logDirectory: FileManager.default.temporaryDirectory, defaultConcurrency: 1)
    let sent = try context.headers(literal: ["x-gateway-key": "placeholder", "X-Title": "demo"],
                                   fromEnvironment: ["X-Gateway-Key": "GATEWAY_KEY"], backend: "g")
    #expect(sent.values == ["X-Gateway-Key": "gw-0123456789", "X-Title": "demo"])
    #expect(sent.publicParts == PublicRequestParts(headerNames: ["x-title"], query: true))
}

@Test("request headers from layers: a later layer replaces a header of any case, so one line goes for each name")
func headerLayers() {
    let merged = HeaderLayers.merged(["Content-Type": "application/json", "Accept": "text/event-stream"],
                                     ["content-type": "application/json; charset=utf-8", "authorization": "gw"],
                                     ["Authorization": "Bearer sk"])
    #expect(merged == ["content-type": "application/json; charset=utf-8", "Accept": "text/event-stream", "Authorization": "Bearer sk"])
}
