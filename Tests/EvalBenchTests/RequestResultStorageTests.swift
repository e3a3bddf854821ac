import Foundation
import Testing
@testable import EvalBench

/// A result's fields live in one shared copy-on-write box: copies share it until one is
/// changed, and then behave as the independent values they always were.
@Suite("RequestResult storage is shared until a copy changes")
struct RequestResultStorageTests {
    @Test("changing a copy, directly or through a nested optional, leaves the original as it was")
    func copiesAreIndependent() {
        let original = fixtureResult(caseID: "capital", status: .pass, latencyMs: 90, ttftMs: 40, usage: Usage(inputTokens: 12, outputTokens: 3))
        var copy = original
        #expect(copy == original)
        copy.output = "Lyon"
        copy.timing?.endMs = 500
        copy.usage.outputTokens = nil
        copy.assertions.append(AssertionResult(type: "contains", name: "contains \"Lyon\"", passed: false))
        #expect(original.output != "Lyon")
        #expect(original.timing?.endMs == 90)
        #expect(original.usage.outputTokens == 3)
        #expect(original.assertions.count + 1 == copy.assertions.count)
        #expect(copy != original)
    }

    @Test("results held by case runs and an aggregate are the values they were made from")
    func sharedByCaseRuns() {
        var results = (1...3).map { fixtureResult(caseID: "case-\($0)", status: .pass, latencyMs: Double($0) * 10) }
        let aggregate = RunAggregate(results)
        results[0].status = .error
        results[0].caseID = "renamed"
        #expect(aggregate.caseRuns.map(\.requests.first?.caseID) == ["case-1", "case-2", "case-3"])
        #expect(aggregate.caseRuns[0].requests[0].status == .pass)
    }

    @Test("a result reads back from its JSON line equal, and encodes exactly as its fields do")
    func codableThroughFields() throws {
        var result = fixtureResult(caseID: "capital", status: .fail, latencyMs: 90, ttftMs: 40, failedAssertion: "contains \"Paris\"")
        result.planIndex = 7
        result.tags = ["geo", "short"]
        let encoder = ResultStore.makeEncoder()
        let line = try encoder.encode(result)
        #expect(line == (try encoder.encode(result.fields)))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(RequestResult.self, from: line) == result)
    }

    @Test("results read from results.jsonl share one array for their case's tags and one for equal verdicts")
    func tagsShared() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tags-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        var data = Data()
        for index in 0..<4 {
            var result = fixtureResult(caseID: "case-\(index / 2)", repeatIndex: index % 2 + 1, status: .pass)
            result.tags = index < 2 ? ["feature-one", "a-rather-long-tag-name"] : ["other"]
            result.assertions = [AssertionResult(type: "contains", name: "contains \"Paris\"", passed: index != 3,
                                                 message: index == 3 ? "the answer does not contain \"Paris\"" : nil)]
            data.append(try ResultStore.makeEncoder().encode(result))
            data.append(0x0A)
        }
        try data.write(to: url)
        let read = try ResultStore.read(url)
        #expect(read.map(\.tags) == [["feature-one", "a-rather-long-tag-name"], ["feature-one", "a-rather-long-tag-name"], ["other"], ["other"]])
        read[0].tags.withUnsafeBufferPointer { first in
            read[1].tags.withUnsafeBufferPointer { second in #expect(first.baseAddress == second.baseAddress) }
        }
        #expect(read.map { $0.assertions.first?.passed } == [true, true, true, false])
        #expect(read[3].assertions.first?.message == "the answer does not contain \"Paris\"")
        read[0].assertions.withUnsafeBufferPointer { first in
            read[2].assertions.withUnsafeBufferPointer { third in #expect(first.baseAddress == third.baseAddress) }
            read[3].assertions.withUnsafeBufferPointer { fourth in #expect(first.baseAddress != fourth.baseAddress) }
        }
    }

    @Test("results a run records are kept for its reports sharing equal tags and verdicts, and are written whole")
    func sharedWhenRecorded() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try ResultStore(url: url)
        var recorded: [RequestResult] = []
        for index in 0..<3 {
            var result = fixtureResult(caseID: "case-\(index)", status: .pass)
            result.tags = ["feature-one", "a-rather-long-tag-name"]
            result.assertions = [AssertionResult(type: "contains", name: "contains \"Paris\"", passed: index != 2,
                                                 message: index == 2 ? "the answer does not contain \"Paris\"" : nil)]
            recorded.append(result)
            try store.append(result)
        }
        try store.close()
        let kept = store.all()
        #expect(kept == recorded)
        #expect(try ResultStore.read(url) == recorded)
        kept[0].tags.withUnsafeBufferPointer { first in
            kept[1].tags.withUnsafeBufferPointer { second in #expect(first.baseAddress == second.baseAddress) }
        }
        kept[0].assertions.withUnsafeBufferPointer { first in
            kept[1].assertions.withUnsafeBufferPointer { second in #expect(first.baseAddress == second.baseAddress) }
            kept[2].assertions.withUnsafeBufferPointer { third in #expect(first.baseAddress != third.baseAddress) }
        }
    }
}
