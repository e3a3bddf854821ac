import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

extension LoopbackNetworkTests {
    @Test("a backend's own timeoutSeconds replaces the run's: a 1 s answer times out at 0.3 s on one backend and passes on the other")
    func perBackendTimeout() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("late", afterMs: 1000)]) }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("timeouts")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suitePath = directory.appendingPathComponent("s.json").path
        try Data(#"{"format": "evalbench.suite/1", "suite": "t", "cases": [{"id": "c", "prompt": "q"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: suitePath))
        let configPath = directory.appendingPathComponent("evalbench.json").path
        try Data("""
        { "backends": [
            { "name": "quick", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1", "timeoutSeconds": 0.3 },
            { "name": "patient", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1" } ],
          "defaults": { "timeoutSeconds": 30, "retries": 0 } }
        """.utf8).write(to: URL(fileURLWithPath: configPath))
        let request = RunRequest(suitePaths: [suitePath], configPath: configPath,
                                 outputDirectory: directory.appendingPathComponent("out").path)
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        let quick = try #require(outcome.results.first { $0.backend == "quick" })
        let patient = try #require(outcome.results.first { $0.backend == "patient" })
        #expect(quick.status == .error)
        #expect(quick.errorKind == .timeout, "\(quick.errorMessage ?? "")")
        #expect(patient.status == .pass, "\(patient.errorMessage ?? "")")
        #expect(patient.output == "late")
    }
}
