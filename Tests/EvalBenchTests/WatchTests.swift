import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

@Suite("Watch mode: change detection and what flipped")
struct WatchTests {
    @Test("the watcher reports a changed, created or removed file once, and nothing when nothing changed")
    func watcher() throws {
        let directory = PackagePaths.temporaryDirectory("watcher")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = directory.appendingPathComponent("s.json")
        let later = directory.appendingPathComponent("rows.jsonl")
        try Data("one".utf8).write(to: suite)
        var watcher = FileWatcher(paths: [suite.path, later.path])
        #expect(watcher.changes().isEmpty)
        try Data("two".utf8).write(to: suite)
        #expect(watcher.changes() == [suite.path], "same second, same size: the content hash tells")
        #expect(watcher.changes().isEmpty)
        try Data("{}".utf8).write(to: later)
        #expect(watcher.changes() == [later.path])
        try FileManager.default.removeItem(at: later)
        #expect(watcher.changes() == [later.path])
    }

    @Test("the diff names flipped verdicts and new requests, token changes, and how many requests were sent")
    func diff() {
        let before = [fixtureResult(caseID: "a", status: .pass, latencyMs: 100, usage: Usage(inputTokens: 10, outputTokens: 2)),
                      fixtureResult(caseID: "b", status: .pass, latencyMs: 100, usage: Usage(inputTokens: 10, outputTokens: 2))]
        var cachedA = fixtureResult(caseID: "a", status: .pass, latencyMs: 100, usage: Usage(inputTokens: 10, outputTokens: 2))
        cachedA.cached = true
        let after = [cachedA,
                     fixtureResult(caseID: "b", status: .fail, latencyMs: 300, usage: Usage(inputTokens: 14, outputTokens: 3)),
                     fixtureResult(caseID: "c", status: .pass, latencyMs: 500, usage: Usage(inputTokens: 5, outputTokens: 1))]
        let lines = WatchDiff.lines(previous: before, current: after)
        #expect(lines == [
            "flip  geo/b/default/local/none/1 turn 1: pass → fail",
            "new   geo/c/default/local/none/1 turn 1: pass",
            "tokens: input 20 → 29 (+9), output 4 → 6 (+2)",
            "requests sent: 2, latency p50 of the new answers 300.0 ms",
        ])
        #expect(WatchDiff.lines(previous: before, current: before).first == "no verdict changed")
    }
}

/// Collects a process's output as it arrives.
private final class OutputBuffer: @unchecked Sendable {
    // @unchecked: `text` is only touched under `lock`.
    private let lock = NSLock()
    private var data = Data()
    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

extension LoopbackNetworkTests {
    @Test("run --watch re-runs on a suite change, sends only the changed request, prints the flip, and stops on Ctrl-C")
    func watchCommand() async throws {
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content((request.messages.last?.content ?? "").contains("France") ? "Paris" : "Rome")])
        }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("watch-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"backends": [{"name": "fake", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}]}"#.utf8)
            .write(to: directory.appendingPathComponent("evalbench.json"))
        func suite(_ second: String) -> Data {
            Data(#"{"format": "evalbench.suite/1", "suite": "w", "cases": [{"id": "a", "prompt": "France?", "expect": [{"type": "contains", "value": "Paris"}]}, {"id": "b", "prompt": "\#(second)", "expect": [{"type": "contains", "value": "Paris"}]}]}"#.utf8)
        }
        try suite("France again?").write(to: directory.appendingPathComponent("s.json"))
        let process = Process()
        process.executableURL = PackagePaths.executable
        process.arguments = ["run", "s.json", "--watch", "--out", "out"]
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(["EVALBENCH_CACHE": directory.appendingPathComponent("cache").path]) { $1 }
        let pipe = Pipe()
        let output = OutputBuffer()
        pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        func waitFor(_ text: String, count: Int = 1) async -> Bool {
            for _ in 0..<300 {
                if output.text.components(separatedBy: text).count - 1 >= count { return true }
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
            return false
        }
        #expect(await waitFor("evalbench: watching"), "\(output.text)")
        #expect(server.requests.count == 2)
        try suite("Italy?").write(to: directory.appendingPathComponent("s.json"))
        #expect(await waitFor("watch iteration 2"), "\(output.text)")
        #expect(await waitFor("evalbench: watching", count: 2), "\(output.text)")
        #expect(server.requests.count == 3, "only the changed case reached the model")
        #expect(output.text.contains("flip  w/b/default/fake/none/1 turn 1: pass → fail") || output.text.contains("new   w/b/default/fake/none/1 turn 1: fail"),
                "\(output.text)")
        #expect(output.text.contains("requests sent: 1"))
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        pipe.fileHandleForReading.readabilityHandler = nil
    }
}
