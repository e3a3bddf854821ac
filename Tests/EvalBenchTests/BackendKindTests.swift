import Foundation
import Testing
@testable import EvalBench

@Suite("Backend kinds: one type per kind, asked instead of matching names")
struct BackendKindTests {
    private static let config = """
    { "backends": [
        { "name": "o", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1", "apiKeyEnv": "KEY", "headers": { "x-trace": "t" },
          "maxTokensField": "max_completion_tokens", "extraBody": { "top_k": 40 }, "structuredOutput": "prompt",
          "reasoning": { "deep": { "effort": "high" } }, "pricing": { "inputPerMTok": 1 }, "contextSize": 8192 },
        { "name": "l", "kind": "llama-server", "modelPath": "/m.gguf", "arguments": ["--jinja"], "sendReasoningNone": true },
        { "name": "a", "kind": "anthropic", "model": "claude", "promptCache": "off" },
        { "name": "g", "kind": "gemini", "model": "gemini-2.5-flash", "timeoutSeconds": 7 },
        { "name": "d", "kind": "apple-system", "prewarm": true },
        { "name": "p", "kind": "apple-pcc", "fallback": "d" }
    ] }
    """

    @Test("a loaded config is written to run.json as the config file wrote it, and reads back equal")
    func roundTrip() throws {
        let config = try ConfigLoader.load(data: Data(Self.config.utf8), file: "c.json", baseDirectory: "/")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(config)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let first = try #require((object["backends"] as? [[String: Any]])?.first)
        #expect(first["baseURL"] as? String == "http://127.0.0.1:9/v1", "kind options sit beside the shared fields")
        #expect(first["maxTokensField"] as? String == "max_completion_tokens")
        #expect(first["contextSize"] as? Int == 8192)
        #expect(try JSONDecoder().decode(Config.self, from: data) == config)
    }

    @Test("a recorded backend of a kind this build does not know reads back, and says why it cannot run")
    func unknownRecordedKind() async throws {
        let recorded = #"{"backends": [{"name": "x", "kind": "future", "model": "m", "depth": 3}], "defaults": {"concurrency": 4, "timeoutSeconds": 120, "retries": 3}}"#
        let config = try JSONDecoder().decode(Config.self, from: Data(recorded.utf8))
        let backend = try #require(config.backends.first)
        #expect(backend.kind == "future" && backend.model == "m")
        #expect(backend.options.cacheIdentity == ["depth": .number(3)])
        let made = try backend.makeBackend(context: BackendContext(environment: [:], transport: URLSessionStreamTransport(),
                                                                  logDirectory: FileManager.default.temporaryDirectory,
                                                                  defaultConcurrency: 1))
        #expect(await made.prepare() == .unavailable("backend kind 'future' is not implemented in this version of evalbench"))
    }

    @Test("cost and placement come from the kind: the recommendation finds the on-device model and PCC by them")
    func costAndPlacement() throws {
        let config = try ConfigLoader.load(data: Data(Self.config.utf8), file: "c.json", baseDirectory: "/")
        #expect(config.backends.map(\.costsMoney) == [true, false, true, true, false, false])
        #expect(config.backends.map(\.placement) == [.remote, .thisMachine, .remote, .remote, .onDevice, .privateCloudCompute])
        #expect(config.backends.map { $0.options.apiKeyEnv } == ["KEY", nil, nil, nil, nil, nil])
    }

    @Test("every built-in kind's name is unique, and its keys are listed once")
    func registry() {
        let names = BackendKindRegistry.builtIn.names
        #expect(names == ["openai", "llama-server", "anthropic", "gemini", "apple-system", "apple-pcc", "replay"])
        for kind in BackendKindRegistry.builtIn.kinds {
            let keys = kind.keys.map(\.name)
            #expect(Set(keys).count == keys.count, "\(kind.name) lists a key twice")
            #expect(!keys.contains("name") && !keys.contains("kind"))
        }
    }

    @Test("no source outside a kind's own folder names a built-in kind")
    func kindNamesStayInTheirFolders() throws {
        let sources = PackagePaths.root.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        let quoted = BackendKindRegistry.builtIn.names.map { "\"\($0)\"" }
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = url.path.replacingOccurrences(of: sources.path + "/", with: "")
            let parts = relative.split(separator: "/")
            if parts.count == 4, parts[0] == "EvalBench", parts[1] == "Backends" { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for name in quoted where text.contains(name) {
                Issue.record("\(relative) names the kind \(name); ask the kind instead")
            }
        }
    }
}
