import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import EvalBench

/// `TokenEstimate` against a real tokenizer: Gemma 3's, which the managed llama-server
/// exposes at `/tokenize`. `scripts/test` installs the server and the model.
@Suite("Token estimates against the real local model's tokenizer", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct TokenEstimateLocalModelIntegrationTests {
    static let samples: [(language: String, text: String)] = [
        ("Japanese", "東京は日本の首都で、世界でも有数の大都市です。春には多くの人が公園で桜を楽しみ、夏には花火大会が開かれます。電車は時間どおりに走り、駅の案内もわかりやすいので、初めての旅行者でも安心して移動できます。"),
        ("Chinese", "北京是中国的首都，也是一座历史悠久的城市。每年春天，许多游客来到这里参观故宫和长城。城市的地铁网络非常发达，人们可以方便地到达各个景点，品尝当地的美食。"),
        ("English", "The quick brown fox jumps over the lazy dog. Paris is the capital of France, and it is known for its museums, its cafes and the long walks along the river Seine on a warm summer evening."),
    ]

    @Test("Japanese, Chinese and English estimates are within 20% of Gemma 3's token counts (4 characters a token was 2.3–2.4× under on CJK)")
    func withinTwentyPercent() async throws {
        let root = PackagePaths.root
        let config = try ConfigLoader.load(path: root.appendingPathComponent("evalbench.json").path)
        let local = try #require(config.backend(named: "local"))
        let logs = PackagePaths.temporaryDirectory("token-estimate")
        defer { try? FileManager.default.removeItem(at: logs) }
        let server = try local.makeBackend(context: BackendContext(
            environment: ProcessInfo.processInfo.environment, transport: URLSessionStreamTransport(),
            logDirectory: logs, defaultConcurrency: 1))
        let availability = await server.prepare()
        do {
            try #require(availability == .available, "llama-server did not start: \(availability)")
            let serverURL = try #require((server as? LlamaServerBackend)?.serverURL)
            for sample in Self.samples {
                let actual = try await Self.tokenize(sample.text, at: serverURL)
                let estimate = TokenEstimate.tokens(in: sample.text)
                let ratio = Double(estimate) / Double(actual)
                print("token estimate \(sample.language): \(sample.text.count) characters, estimate \(estimate), Gemma 3 \(actual), ratio \(String(format: "%.3f", ratio))")
                #expect(abs(ratio - 1) <= 0.2, "\(sample.language): estimate \(estimate) against \(actual) tokens")
                if sample.language != "English" {
                    let oldRule = (sample.text.count + 3) / 4
                    #expect(Double(oldRule) / Double(actual) < 0.5, "the old 4-characters rule under-counts \(sample.language)")
                }
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// llama-server's `/tokenize`: `{"content": text}` → `{"tokens": [...]}`, without special tokens.
    static func tokenize(_ text: String, at serverURL: URL) async throws -> Int {
        var request = URLRequest(url: serverURL.appendingPathComponent("tokenize"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["content": text])
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tokens = try #require(object["tokens"] as? [Any])
        return tokens.count
    }
}
