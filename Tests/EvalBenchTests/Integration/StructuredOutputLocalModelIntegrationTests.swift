import Foundation
import Testing
@testable import EvalBench

/// Structured output on the real local model: llama-server turns `response_format`
/// `json_schema` into a grammar, so every answer is JSON that follows the case's schema,
/// whether or not the tiny model picks the right label.
@Suite("Structured output on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct StructuredOutputLocalModelIntegrationTests {
    @Test("evals/structured.json: each answer parses as JSON whose label is one of the schema's enum")
    func constrainedDecoding() async throws {
        let root = PackagePaths.root
        let out = PackagePaths.temporaryDirectory("structured-local")
        defer { try? FileManager.default.removeItem(at: out) }
        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/structured.json").path],
                                 configPath: root.appendingPathComponent("evalbench.json").path,
                                 outputDirectory: out.path)
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
        #expect(outcome.results.count == 3)
        for result in outcome.results {
            #expect(result.status != .error, "\(result.caseID): \(result.errorMessage ?? "")")
            let output = try #require(result.output, "\(result.caseID): no output")
            let object = try #require(try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
                                      "\(result.caseID): not a JSON object: \(output)")
            #expect(Set(object.keys) == ["label"], "\(result.caseID): additionalProperties is false: \(output)")
            let label = try #require(object["label"] as? String, "\(result.caseID): \(output)")
            #expect(["cat", "dog", "cow", "duck"].contains(label), "\(result.caseID): \(label) is not in the enum")
            // evalbench's own validator agrees with llama.cpp's grammar.
            let schema = try JSONSchema(validating: try #require(loaded.suites.first?.cases.first { $0.id == result.caseID }?.output?.schema))
            let answer = JSONValue(try JSONDocument(data: Data(output.utf8), file: "answer").root)
            #expect(schema.validate(answer).isEmpty, "\(result.caseID): \(schema.validate(answer))")
            #expect(result.assertions.first { $0.name == "follows the schema" }?.passed == true)
        }
        #expect(outcome.results.first { $0.caseID == "meow" }?.status == .pass, "Gemma 3 270M names the cat")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("structured output: native (response_format json_schema"))
    }
}
