@testable import EvalBench
import Foundation

/// Paths inside this package, for tests that run the real tool and the shipped suites.
enum PackagePaths {
    /// The package root (the folder with Package.swift).
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The `evalbench` executable built next to the test bundle.
    static var executable: URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("evalbench")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/evalbench")
    }

    static func temporaryDirectory(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Whether the real local model is installed for integration tests (scripts/test sets this).
let integrationEnabled = ProcessInfo.processInfo.environment["EVALBENCH_INTEGRATION"] == "1"

/// The built `evalbench` executable, set up to run in `directory` as a user would.
func evalbenchProcess(_ arguments: [String], in directory: URL = PackagePaths.root,
                      environment: [String: String] = [:]) -> Process {
    let process = Process()
    process.executableURL = PackagePaths.executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    return process
}

/// Runs the built `evalbench` in `directory` (by default the package root, whose
/// evalbench.json names the managed local model) and returns its exit status and output.
///
/// The reads and the wait block, so they run on a thread of their own: on the test process's
/// cooperative pool (one thread per core, 2 here) a test waiting on a child process held a
/// thread for the child's whole run, and with one other long test every other test waited
/// too (hundreds of tests ended together after about 9 s, and a fake's 10 s timeout fired).
func runEvalbench(_ arguments: [String], in directory: URL = PackagePaths.root,
                  environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let process = evalbenchProcess(arguments, in: directory, environment: environment)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    return await offThePool {
        // stderr is read beside stdout, so that a child filling one pipe never waits on the other.
        nonisolated(unsafe) var stderr = Data()
        let readingErr = DispatchGroup()
        readingErr.enter()
        Thread {
            stderr = err.fileHandleForReading.readDataToEndOfFile()
            readingErr.leave()
        }.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        readingErr.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}

/// The last `lines` lines of the log of the llama-server that backend `name` started for a run
/// whose output is `out`, for a failure's message: the run's directory is deleted with the test.
func serverLogTail(in out: URL, backend name: String, lines: Int = 40) -> String {
    let log = out.appendingPathComponent("llama-server-\(name).log")
    guard let text = try? String(contentsOf: log, encoding: .utf8) else { return "(no log at \(log.path))" }
    return "llama-server-\(name).log, last \(lines) lines:\n" + text.split(separator: "\n").suffix(lines).joined(separator: "\n")
}
