import Foundation
import Testing
@testable import EvalBench

/// `evalbench init`'s files (issue 21, item 4).
@Suite("Starter files")
struct StarterFilesTests {
    @Test("the starter config, the examples of every kind and the starter suite load; nothing is overwritten")
    func starterFilesLoad() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-init-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try StarterFiles.write(to: directory)
        #expect(written.count == StarterFiles.files.count)
        let config = try ConfigLoader.load(path: directory.appendingPathComponent("evalbench.json").path)
        #expect(config.backends.map(\.kind) == ["llama-server"])
        let examples = try ConfigLoader.load(path: directory.appendingPathComponent("evalbench.examples.json").path)
        let withExamples = BackendKindRegistry.builtIn.kinds.filter { $0.example != nil }.map { $0.name }
        #expect(Set(examples.backends.map(\.kind)) == Set(withExamples))
        #expect(withExamples.count >= 6, "every kind but replay, which needs a recording, has an example")
        let suite = try SuiteLoader.load(path: directory.appendingPathComponent("evals/starter.json").path)
        #expect(suite.cases.map(\.turns.count) == [1, 2, 1])
        #expect(suite.cases.last?.output != nil, "one structured case")
        let before = try Data(contentsOf: directory.appendingPathComponent("evals/starter.json"))
        #expect(throws: Diagnostic.self) { try StarterFiles.write(to: directory) }
        #expect(try Data(contentsOf: directory.appendingPathComponent("evals/starter.json")) == before)
    }
}
