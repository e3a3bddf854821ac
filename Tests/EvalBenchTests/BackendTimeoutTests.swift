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
        let fixture = try RunFixture("timeouts",
                                     suite: #"{"format": "evalbench.suite/1", "suite": "t", "cases": [{"id": "c", "prompt": "q"}]}"#,
                                     config: """
        { "backends": [
            { "name": "quick", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1", "timeoutSeconds": 0.3 },
            { "name": "patient", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1" } ],
          "defaults": { "timeoutSeconds": 30, "retries": 0 } }
        """)
        defer { fixture.remove() }
        let request = fixture.request()
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        let quick = try #require(outcome.results.first { $0.backend == "quick" })
        let patient = try #require(outcome.results.first { $0.backend == "patient" })
        #expect(quick.status == .error)
        #expect(quick.errorKind == .timeout, "\(quick.errorMessage ?? "")")
        #expect(patient.status == .pass, "\(patient.errorMessage ?? "")")
        #expect(patient.output == "late")
    }
}
