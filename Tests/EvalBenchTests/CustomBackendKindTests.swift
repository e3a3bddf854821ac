import Foundation
import Testing
// Not @testable: an app adds a kind through the public API only.
import EvalBench

/// A kind an app could define: it answers every prompt with its configured `greeting`, and
/// refuses a config whose `greeting` is empty.
private struct GreeterKind: BackendKind {
    static let name = "greeter"
    static let keys: [ConfigKey] = [
        .model, .concurrency,
        ConfigKey("greeting", .string, required: true, check: { value in
            value == .string("") ? ConfigProblem(key: "greeting", message: "'greeting' is empty", fix: "write a greeting") : nil
        }),
        ConfigKey("shout", .bool),
    ]
    static let costsMoney = false

    var greeting: String
    var shout: Bool?

    init?(_ values: ConfigValues) {
        guard let greeting = values.string("greeting") else { return nil }
        self.greeting = greeting
        shout = values.bool("shout")
    }

    func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        Greeter(name: config.name, model: config.model,
                answer: shout == true ? greeting.uppercased() : greeting)
    }

    var cacheIdentity: [String: JSONValue] { ["greeting": .string(greeting)] }
}

private struct Greeter: Backend, Conversation {
    let name: String
    let kind = GreeterKind.name
    let model: String?
    let concurrency = 1
    let answer: String

    func prepare() async -> Availability { .available }
    func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport { .supported("none needed") }
    var structuredOutputSupport: String { "in the prompt" }
    func startConversation() async -> any Conversation { self }
    func shutdown() async {}

    func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
        let prompt = request.messages.last?.content ?? ""
        return .success(ModelResponse(text: "\(answer), \(prompt)", timing: RequestTiming(startedAt: Date()),
                                      usage: Usage(inputTokens: 3, outputTokens: 2), finishReason: "stop", model: model))
    }
}

@Suite("A backend kind of an app's own, added through the public API")
struct CustomBackendKindTests {
    private func write(_ files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-custom-kind-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    @Test("a registered kind loads with its own keys and runs a case")
    func runsACase() async throws {
        let directory = try write([
            "evalbench.json": #"{"backends": [{"name": "hello", "kind": "greeter", "greeting": "hello", "shout": true}]}"#,
            "suite.json": #"{"format": "evalbench.suite/1", "suite": "greet", "cases": [{"id": "world", "prompt": "world", "expect": [{"type": "contains", "value": "HELLO, world"}]}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        var evaluation = Evaluation(suites: [.file(directory.appendingPathComponent("suite.json").path)],
                                    config: .file(directory.appendingPathComponent("evalbench.json").path))
        evaluation.outputDirectory = directory.appendingPathComponent("out").path
        evaluation.environment = [:]
        evaluation.backendKinds = BackendKindRegistry.builtIn.registering(GreeterKind.self)
        let report = try await evaluation.run()
        #expect(report.passRate == 1)
        #expect(report.results.map(\.output) == ["HELLO, world"])
        #expect(report.results.first?.costUSD == 0, "a kind that costs no money is charged nothing")
    }

    @Test("its keys are checked like the built-in kinds': unknown keys with a did-you-mean, types and its own checks, each where it is")
    func checksItsKeys() throws {
        let kinds = BackendKindRegistry.builtIn.registering(GreeterKind.self)
        let text = """
        {"backends": [
          {"name": "a", "kind": "greeter", "greting": "hi", "shout": "yes"},
          {"name": "b", "kind": "greeter", "greeting": ""}
        ]}
        """
        do {
            _ = try ConfigLoader.load(data: Data(text.utf8), file: "c.json", baseDirectory: "/", kinds: kinds)
            Issue.record("the config loaded")
        } catch {
            let found = error.diagnostics.map { "\($0.location.map { "\($0.line):\($0.column)" } ?? "-") \($0.message)" }
            #expect(found.contains("2:3 missing required key 'greeting'"), "\(found)")
            #expect(found.contains("2:36 unknown key 'greting'; did you mean 'greeting'?"), "\(found)")
            #expect(found.contains { $0.hasPrefix("2:62 ") && $0.contains("'shout'") }, "\(found)")
            #expect(found.contains("3:48 'greeting' is empty"), "\(found)")
        }
        do {
            _ = try ConfigLoader.load(data: Data(text.utf8), file: "c.json", baseDirectory: "/")
            Issue.record("the config loaded without the kind registered")
        } catch {
            #expect(error.diagnostics.contains { $0.message == "unknown backend kind 'greeter'" })
        }
    }
}
