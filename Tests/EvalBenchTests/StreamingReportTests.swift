import Foundation
import Testing
@testable import EvalBench

/// The streamed paths (results.jsonl read a chunk at a time, results.csv written a piece at a
/// time) give exactly what the whole-file paths gave.
@Suite("Streaming reads and writes give the same results and files")
struct StreamingReportTests {
    /// Results with repeats, errors, unknown usage and several groups, some with outputs long
    /// enough that lines straddle the reader's 1 MiB chunks.
    static func results() -> [RequestResult] {
        var results: [RequestResult] = []
        for index in 0..<40 {
            var result = fixtureResult(caseID: "case-\(index % 7)", backend: index % 2 == 0 ? "local" : "remote",
                                       reasoning: index % 3 == 0 ? .light : .none, repeatIndex: index / 14 + 1,
                                       status: index % 5 == 0 ? .error : (index % 4 == 0 ? .fail : .pass),
                                       errorKind: index % 5 == 0 ? .timeout : nil,
                                       latencyMs: index % 5 == 0 ? nil : Double(100 + index * 7) + 0.25,
                                       ttftMs: index % 5 == 0 ? nil : Double(10 + index),
                                       usage: index % 3 == 0 ? Usage() : Usage(inputTokens: 10 + index, outputTokens: index),
                                       failedAssertion: index % 4 == 0 ? "says, \"Paris\"" : nil)
            result.output = String(repeating: "x", count: index % 6 == 0 ? 300_000 + index : 5)
            results.append(result)
        }
        return results
    }

    @Test("results.jsonl read in chunks: every result in order, bad lines reported with their line numbers")
    func chunkedRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let results = Self.results()
        let encoder = ResultStore.makeEncoder()
        var data = Data()
        for (index, result) in results.enumerated() {
            data.append(try encoder.encode(result.withFiniteFigures()))
            data.append(0x0A)
            if index == 20 { data.append(Data("{\"not\": a result}\n\n".utf8)) }
        }
        data.append(Data("{\"key\":\"torn".utf8))
        try data.write(to: url)
        #expect(data.count > 2 << 20, "the file spans three 1 MiB chunks")
        var skipped: [Diagnostic] = []
        let read = try ResultStore.read(url) { skipped.append($0) }
        #expect(read == results.map { $0.withFiniteFigures() })
        #expect(skipped.map(\.location?.line) == [22, 43])
        #expect(skipped.first?.description.contains("not a result line") == true)
        #expect(skipped.last?.description.contains("a torn last line") == true)
        var streamed: [RequestResult] = []
        try ResultStore.scan(url, skipped: { _ in }) { streamed.append($0) }
        #expect(streamed == read)
    }

    @Test("results.jsonl read in batches decoded on every core: every result and warning in file order, numbered as line by line")
    func batchedRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("batches-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        // More than two batches of lines, with bad lines in the first, at a batch's edge and
        // in the last, so every batch is cut between the cores and some cuts fall next to them.
        let count = ResultStore.batchSize * 2 + 700
        let badAfter: Set<Int> = [3, ResultStore.batchSize - 2, ResultStore.batchSize * 2 + 100]
        let encoder = ResultStore.makeEncoder()
        var data = Data()
        var expected: [RequestResult] = []
        var badLines: [Int] = []
        var line = 0
        for index in 0..<count {
            var result = fixtureResult(caseID: "case-\(index)", status: index % 9 == 0 ? .fail : .pass, latencyMs: Double(index) + 0.5)
            result.planIndex = index
            expected.append(result.withFiniteFigures())
            data.append(try encoder.encode(result.withFiniteFigures()))
            data.append(0x0A)
            line += 1
            if badAfter.contains(index) {
                data.append(Data("{\"suite\": 1}\n".utf8))
                line += 1
                badLines.append(line)
            }
        }
        try data.write(to: url)
        var skipped: [Diagnostic] = []
        let read = try ResultStore.read(url) { skipped.append($0) }
        #expect(read.count == count)
        #expect(read == expected)
        #expect(skipped.map(\.location?.line) == badLines)
        var order: [Int] = []
        try ResultStore.scan(url, skipped: { _ in }) { order.append($0.planIndex ?? -1) }
        #expect(order == Array(0..<count))
    }

    @Test("results.csv written in pieces is byte for byte the rendered file, in the same row order")
    func streamedResultsCSV() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = Self.results()
        try ReportWriter.write(ReportInput(results: results, startedAt: Date(), endedAt: Date()), to: directory)
        let written = try String(contentsOf: directory.appendingPathComponent(RunDirectory.FileName.resultsCSV), encoding: .utf8)
        #expect(written == ResultsCSV.render(RunAggregate(results).caseRuns.flatMap(\.requests)))
        let file = directory.appendingPathComponent("direct.csv")
        try ResultsCSV.write(results, to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == ResultsCSV.render(results))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "no temporary file is left behind")
    }

    @Test("results.csv read from a table's rows, without building the requests, is byte for byte the one from the requests: rows, results kept whole, costs, verdicts whose details are split off, later turns, impossible usage")
    func resultsCSVFromRows() throws {
        var results = Self.results()
        var withTools = fixtureResult(caseID: "tools", status: .pass, latencyMs: 12.5, ttftMs: 3)
        withTools.rounds = [ToolRound(round: 1, latencyMs: 3, ttftMs: nil, usage: Usage(inputTokens: 1), toolCalls: 1)]
        withTools.toolCalls = [ToolCallRecord(round: 1, id: "c1", name: "weather", arguments: .object(["city": .string("Paris")]),
                                              argumentsText: #"{"city":"Paris"}"#, result: "sunny", isError: false, matched: true)]
        var detailed = fixtureResult(caseID: "detailed", turn: 2, turns: 2, status: .fail, latencyMs: 40.125, ttftMs: 9,
                                     usage: Usage(inputTokens: 100, cachedInputTokens: 60, outputTokens: 7), costUSD: 0.000125)
        detailed.assertions = [AssertionResult(type: "contains", name: "names Paris", passed: false, message: "not found", actual: "Lyon"),
                                AssertionResult(type: "latency", name: "fast", passed: true, actual: "40"),
                                AssertionResult(type: "regex", name: "cites; a source", passed: false, pointer: "/0", note: "n")]
        let firstTurn = fixtureResult(caseID: "detailed", turn: 1, turns: 2, status: .pass, latencyMs: 20, ttftMs: 4)
        var ownKey = fixtureResult(caseID: "own-key", status: .pass, latencyMs: 5)
        ownKey.key = "a key of its own"
        let flagged = fixtureResult(caseID: "flagged", status: .pass, latencyMs: 7,
                                    usage: Usage(inputTokens: 10, cachedInputTokens: 50, outputTokens: 2).checked())
        let unflagged = fixtureResult(caseID: "unflagged", status: .pass, latencyMs: 7, usage: Usage(inputTokens: -3, outputTokens: 2))
        results += [detailed, withTools, firstTurn, flagged, unflagged, ownKey]
        let table = ResultTable(results)
        #expect(table.keptWhole.count >= 1, "the result with tool calls is kept whole")
        // Fields read alone are the built result's: rows, a key of its own, results kept whole.
        for position in table.indices {
            #expect(table.key(at: position) == table[position].key)
            #expect(table.turns(at: position) == table[position].turns)
        }
        #expect(table.key(at: table.count - 1) == "a key of its own")
        let aggregate = RunAggregate(table)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rows-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results.csv")
        try ResultsCSV.write(figures: aggregate.caseRuns.requestFigures, to: file)
        let fromRows = try String(contentsOf: file, encoding: .utf8)
        #expect(fromRows == ResultsCSV.render(aggregate.caseRuns.flatMap(\.requests)))
        #expect(fromRows.contains("names Paris; cites; a source"))
        #expect(fromRows.contains("0.000125"))
        #expect(fromRows.contains(",,,,,cached and cache-write input tokens (50) exceed input_tokens 10\r\n"))
        #expect(fromRows.contains(",,,,,input_tokens -3 is negative\r\n"))
        // A list of case runs given as they are reads the same.
        let given = CaseRunList(Array(aggregate.caseRuns))
        try ResultsCSV.write(figures: given.requestFigures, to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == fromRows)
    }

    @Test("junit.xml written in pieces is byte for byte the rendered document, with and without an interruption")
    func streamedJUnit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = Self.results()
        var input = ReportInput(results: results, startedAt: Date(), endedAt: Date())
        try ReportWriter.write(input, to: directory)
        let file = directory.appendingPathComponent(RunDirectory.FileName.junit)
        let aggregate = RunAggregate(results)
        #expect(try String(contentsOf: file, encoding: .utf8) == JUnitXML.render(aggregate))
        #expect(JUnitXML.render(aggregate).contains("<testcase"))
        input.interruption = "Interrupted after 3 of 40 requests."
        try ReportWriter.write(input, to: directory)
        let interrupted = try String(contentsOf: file, encoding: .utf8)
        #expect(interrupted == JUnitXML.render(aggregate, interruption: input.interruption))
        #expect(interrupted.contains("name=\"run complete\""))
    }
}
