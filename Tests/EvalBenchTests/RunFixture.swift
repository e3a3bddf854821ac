import Foundation
@testable import EvalBench

/// A temporary directory holding a suite (`s.json` unless named otherwise) and a backend config (`evalbench.json`)
/// written from JSON text, for tests that load or run them; `remove()` deletes it.
struct RunFixture {
    let directory: URL
    let suitePath: String
    var configPath: String { directory.appendingPathComponent("evalbench.json").path }

    /// Writes `suite` (as `suiteFile`) and `config` into a new temporary directory named after `name`.
    init(_ name: String, suiteFile: String = "s.json", suite: String, config: String) throws {
        directory = PackagePaths.temporaryDirectory(name)
        suitePath = directory.appendingPathComponent(suiteFile).path
        try Data(suite.utf8).write(to: URL(fileURLWithPath: suitePath))
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    /// A request for the fixture's suite and config, writing to `out/` inside the fixture.
    func request(backends: [String] = []) -> RunRequest {
        RunRequest(suitePaths: [suitePath], configPath: configPath, backends: backends,
                   outputDirectory: directory.appendingPathComponent("out").path)
    }

    /// The diagnostics loading the fixture's run reports; empty when it loads.
    func loadDiagnostics(backends: [String] = []) -> [Diagnostic] {
        do {
            _ = try EvalRun.load(request(backends: backends))
            return []
        } catch let error as LoadError {
            return error.diagnostics
        } catch {
            return [Diagnostic(file: configPath, message: "not a load error: \(error)")]
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The diagnostics `load` throws; empty when it loads.
func loadDiagnostics(_ load: () throws(LoadError) -> Void) -> [Diagnostic] {
    do {
        try load()
        return []
    } catch {
        return error.diagnostics
    }
}

/// The diagnostics loading suite `text`, named `file`, reports; empty when it loads.
func suiteProblems(_ text: String, file: String) -> [Diagnostic] {
    loadDiagnostics { () throws(LoadError) in _ = try SuiteLoader.load(data: Data(text.utf8), file: file) }
}
