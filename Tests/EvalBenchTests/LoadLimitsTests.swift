import Foundation
import Testing
@testable import EvalBench

private let suite = #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "q"}]}"#
private let backend = #"{ "name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1" }"#

/// The diagnostics loading a run of `suiteText` on `configText` reports.
private func problems(suite suiteText: String = suite, config configText: String,
                      adjust: (inout RunRequest) -> Void = { _ in }) throws -> [Diagnostic] {
    let fixture = try RunFixture("limits", suite: suiteText, config: configText)
    defer { fixture.remove() }
    var request = fixture.request()
    adjust(&request)
    do {
        _ = try EvalRun.load(request)
        return []
    } catch let error as LoadError {
        return error.diagnostics
    }
}

@Suite("Absurd limits are refused at load, where they are written, with a fix")
struct LoadLimitsTests {
    @Test("\"timeoutSeconds\": 1e300 in defaults and on a backend is refused with line, column and the bound")
    func absurdTimeouts() throws {
        let found = try problems(config: """
        { "backends": [ { "name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1", "timeoutSeconds": 1e300 } ],
          "defaults": { "timeoutSeconds": 1e300 } }
        """)
        #expect(found.count == 2)
        for diagnostic in found {
            #expect(diagnostic.message.contains("'timeoutSeconds' is 1e300, above the largest evalbench accepts, 86400"))
            #expect(diagnostic.location != nil)
            #expect(diagnostic.fix == "use a value of at most 86400")
        }
        #expect(found.map { $0.location?.line } == [1, 2])
    }

    @Test("concurrency, retries, contextSize, prices and thinking budgets each have a bound")
    func otherConfigLimits() throws {
        let found = try problems(config: """
        { "backends": [ { "name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1", "concurrency": 100000000,
                          "contextSize": 1000000000000, "pricing": { "outputPerMTok": 1e308 } } ],
          "defaults": { "concurrency": 5000, "retries": 1000000 } }
        """)
        let messages = found.map(\.message).joined(separator: "\n")
        #expect(messages.contains("'concurrency' is 100000000"))
        #expect(messages.contains("'contextSize' is 1000000000000"))
        #expect(messages.contains("'outputPerMTok' is 1e308"))
        #expect(messages.contains("'concurrency' is 5000"))
        #expect(messages.contains("'retries' is 1000000"))
        #expect(found.allSatisfy { $0.location != nil && $0.fix != nil })
    }

    @Test("\"repeat\": 1000000000 is refused at its line before the matrix is built")
    func absurdRepeat() throws {
        let found = try problems(suite: """
        {"format": "evalbench.suite/1", "suite": "s",
         "repeat": 1000000000, "cases": [{"id": "c", "prompt": "q"}]}
        """, config: #"{ "backends": [\#(backend)] }"#)
        let diagnostic = try #require(found.first)
        #expect(diagnostic.message.contains("'repeat' is 1000000000, above the largest evalbench accepts, 100000"))
        #expect(diagnostic.location == SourceLocation(line: 2, column: 12))
    }

    @Test("a weight of 1e308 and maxOutputTokens beyond any model are refused where they are written")
    func absurdSuiteFigures() throws {
        let found = try problems(suite: """
        {"format": "evalbench.suite/1", "suite": "s", "options": {"maxOutputTokens": 10000000000},
         "cases": [{"id": "c", "prompt": "q", "expect": [{"type": "contains", "value": "a", "weight": 1e308}]}]}
        """, config: #"{ "backends": [\#(backend)] }"#)
        let messages = found.map(\.message).joined(separator: "\n")
        #expect(messages.contains("'weight' is 1e308"))
        #expect(messages.contains("'maxOutputTokens' is 10000000000"))
    }

    @Test("--repeat and --concurrency above their bounds are refused, naming the option")
    func commandLineLimits() throws {
        let found = try problems(config: #"{ "backends": [\#(backend)] }"#) { request in
            request.repeatCount = 1_000_000_000
            request.concurrency = 1_000_000
        }
        let messages = found.map(\.message)
        #expect(messages.contains { $0.hasPrefix("--repeat 1000000000 is above") })
        #expect(messages.contains { $0.hasPrefix("--concurrency 1000000 is above") })
    }

    @Test("a matrix larger than --max-requests is refused with its request count, before it is built")
    func matrixBound() throws {
        let found = try problems(suite: """
        {"format": "evalbench.suite/1", "suite": "s", "repeat": 100000, "reasoning": ["none", "light", "moderate", "deep"],
         "cases": [{"id": "a", "prompt": "q"}, {"id": "b", "turns": [{"prompt": "1"}, {"prompt": "2"}]}]}
        """, config: #"{ "backends": [\#(backend)] }"#)
        let diagnostic = try #require(found.first)
        #expect(diagnostic.message.contains("would send 1200000 requests"))
        #expect(diagnostic.message.contains("more than --max-requests 1000000"))
        #expect(diagnostic.fix?.contains("--max-requests") == true)
        let raised = try problems(config: #"{ "backends": [\#(backend)] }"#) { request in
            request.repeatCount = 3
            request.maxRequests = 2
        }
        #expect(raised.first?.message.contains("would send 3 requests") == true)
        #expect(Planner.requestCount([Suite(name: "s", cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])], repeatCount: 7)],
                                     PlanSelection(backends: ["x", "y"], defaultReasoning: [.none, .deep])) == 28)
    }
}
