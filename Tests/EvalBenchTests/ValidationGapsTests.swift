import Foundation
import Testing
@testable import EvalBench

/// Every diagnostic is reported, each with file:line:column (issue 16, item 8).
@Suite("Validation reports everything, with positions")
struct ValidationGapsTests {
    private func write(_ files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-gaps-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    private func problems(_ directory: URL, environment: [String: String] = [:]) -> [String] {
        let request = RunRequest(suitePaths: [directory.appendingPathComponent("s.json").path],
                                 configPath: directory.appendingPathComponent("c.json").path, environment: environment)
        do {
            _ = try EvalRun.load(request)
            return []
        } catch let error as LoadError {
            return error.diagnostics.map { diagnostic in
                let place = diagnostic.location.map { "\($0.line):\($0.column)" } ?? "-"
                return "\(URL(fileURLWithPath: diagnostic.file).lastPathComponent):\(place) \(diagnostic.message)"
            }
        } catch {
            return ["not a LoadError: \(error)"]
        }
    }

    @Test("a judge naming an unknown backend is reported even when the suite has other errors, at its line and column")
    func judgeCheckedBesideOtherErrors() throws {
        let directory = try write([
            "c.json": #"{"backends": [{"name": "srv", "kind": "openai", "model": "m", "baseURL": "http://127.0.0.1:9/v1"}]}"#,
            "s.json": """
            {"format": "evalbench.suite/1", "suite": "s", "cases": [
              {"id": "a"},
              {"id": "b", "prompt": "x", "expect": [{"type": "judge", "backend": "nobody", "rubric": "r"}]}]}
            """,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = problems(directory)
        #expect(found.contains { $0.hasPrefix("s.json:2:3 missing required key 'prompt'") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("s.json:3:") && $0.contains("names backend 'nobody', which the config does not define") },
                "\(found)")
    }

    @Test("an unset apiKeyEnv variable is reported at the line and column of the key")
    func missingKeyHasPosition() throws {
        let directory = try write([
            "c.json": """
            {"backends": [
              {"name": "srv", "kind": "openai", "model": "m", "baseURL": "http://127.0.0.1:9/v1", "apiKeyEnv": "EVALBENCH_GAPS_KEY"}]}
            """,
            "s.json": #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "x"}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = problems(directory)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("c.json:2:100 backend 'srv' reads its API key from the environment variable EVALBENCH_GAPS_KEY") == true,
                "\(found)")
        #expect(problems(directory, environment: ["EVALBENCH_GAPS_KEY": "k"]).isEmpty)
    }
}
