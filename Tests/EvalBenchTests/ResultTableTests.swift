import Foundation
import Testing
@testable import EvalBench

/// The compact rows the reports keep results in: every result reads back exactly as it was
/// appended, to the byte and the bit, whether it fits a row or is kept whole.
@Suite("ResultTable keeps results compactly and reads them back exactly")
struct ResultTableTests {
    /// `results` through a table, each compared as its results.jsonl line (which shows every
    /// byte of every string and the sign of a zero) and as a value.
    /// Each is read from a table whose rows stay in memory (fewer than a block) and from
    /// tables whose rows go to the temporary file a row and two rows at a time.
    private func expectReadBack(_ results: [RequestResult], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        for rowsPerBlock in [4_096, 1, 2] {
            try expectReadBack(results, from: ResultTable(results, rowsPerBlock: rowsPerBlock), sourceLocation: sourceLocation)
        }
    }

    private func expectReadBack(_ results: [RequestResult], from table: ResultTable,
                                sourceLocation: Testing.SourceLocation) throws {
        #expect(table.count == results.count, sourceLocation: sourceLocation)
        let encoder = ResultStore.makeEncoder()
        for (index, result) in results.enumerated() {
            #expect(table[index] == result, sourceLocation: sourceLocation)
            #expect(try encoder.encode(table[index]) == (try encoder.encode(result)), "result \(index)", sourceLocation: sourceLocation)
            #expect(table.planIndex(at: index) == result.planIndex, sourceLocation: sourceLocation)
            #expect(table.turn(at: index) == result.turn, sourceLocation: sourceLocation)
            #expect(table.suite(at: index) == result.suite, sourceLocation: sourceLocation)
            let (status, ownLatency) = table.statusAndOwnLatency(at: index)
            #expect(status == result.status, sourceLocation: sourceLocation)
            #expect(ownLatency == (result.hasOwnTiming ? result.timing?.latencyMs : nil), "result \(index)", sourceLocation: sourceLocation)
        }
    }

    @Test("results of every status, with and without timing, usage, cost, score and plan index, read back exactly")
    func everyKind() throws {
        var passed = fixtureResult(caseID: "capital", status: .pass, latencyMs: 90, ttftMs: 40,
                                   usage: Usage(inputTokens: 120, cachedInputTokens: 100, outputTokens: 4, source: .reported),
                                   costUSD: 0.000_12)
        passed.planIndex = 0
        passed.output = "Paris"
        passed.tags = ["geo", "short"]
        passed.score = 1
        passed.finishReason = "stop"
        passed.instructions = "Answer in one word."
        var failed = fixtureResult(caseID: "capital", repeatIndex: 2, status: .fail, latencyMs: 51.125,
                                   usage: Usage(inputTokens: 0, outputTokens: 0, reasoningTokens: 0, source: .estimated),
                                   failedAssertion: "contains \"Paris\"", costUSD: -0.0)
        failed.planIndex = 1
        failed.output = String(repeating: "a long answer ", count: 20)
        failed.timing?.firstTokenMs = nil
        failed.score = -0.0
        var errored = fixtureResult(caseID: "river", backend: "cloud", status: .error, errorKind: .timeout,
                                    errorMessage: "timed out after 60 s")
        errored.planIndex = 2_000_000_000
        errored.attempts = 3
        let unplanned = fixtureResult(caseID: "mountain", reasoning: .deep, status: .pass, latencyMs: 0,
                                      usage: Usage(cacheWriteInputTokens: 7, source: .counted))
        try expectReadBack([passed, failed, errored, unplanned, passed, failed])
    }

    @Test("strings are kept byte for byte: two spellings of é, which Swift's == takes as equal, stay apart")
    func canonicalEquivalents() throws {
        var composed = fixtureResult(caseID: "caf\u{E9}", status: .pass)
        composed.prompt = "Caf\u{E9}?"
        composed.tags = ["caf\u{E9}"]
        composed.assertions = [AssertionResult(type: "contains", name: "caf\u{E9}", passed: true, weight: 0)]
        var decomposed = fixtureResult(caseID: "cafe\u{301}", status: .pass)
        decomposed.prompt = "Cafe\u{301}?"
        decomposed.tags = ["cafe\u{301}"]
        decomposed.assertions = [AssertionResult(type: "contains", name: "cafe\u{301}", passed: true, weight: -0.0)]
        #expect(composed.prompt == decomposed.prompt, "Swift's == matches them, so sharing by == would change one")
        try expectReadBack([composed, decomposed, composed, decomposed])
        let table = ResultTable([composed, decomposed])
        #expect(Array(table[1].prompt.utf8) == Array("Cafe\u{301}?".utf8))
        #expect(table[1].assertions[0].weight.sign == .minus)
    }

    @Test("a key that is not its fields joined (a turn switched backend) is kept as recorded")
    func switchedKey() throws {
        var switched = fixtureResult(caseID: "review", turn: 2, turns: 2, backend: "cloud", status: .pass)
        switched.key = "geo/review/default/local/none/1"
        var lookalike = fixtureResult(caseID: "a/b", status: .pass)
        lookalike.key = "geo/a/b/default/local/none/1"
        var extra = fixtureResult(caseID: "x", status: .pass)
        extra.key += "/"
        try expectReadBack([switched, lookalike, extra])
    }

    @Test("a result with a field a row has no room for, or a count beyond its range, is kept whole and reads back equal")
    func keptWhole() throws {
        var skipped = fixtureResult(caseID: "a", status: .skipped)
        skipped.skipReason = "reasoning level not supported"
        var longConversation = fixtureResult(caseID: "b", turn: 70_000, turns: 70_000, status: .pass)
        longConversation.planIndex = Int.max
        var hugeUsage = fixtureResult(caseID: "c", status: .pass, usage: Usage(inputTokens: 3_000_000_000))
        hugeUsage.planIndex = -1
        var suspect = fixtureResult(caseID: "d", status: .pass, usage: Usage(inputTokens: 5, cachedInputTokens: 9))
        suspect.usage.suspect = "cached above input"
        var sentinel = fixtureResult(caseID: "e", status: .pass, usage: Usage(outputTokens: Int(Int32.min)))
        sentinel.attempts = 1 << 20
        var tools = fixtureResult(caseID: "f", status: .pass)
        tools.toolCalls = []
        tools.cached = true
        tools.replayed = false
        // Timed by the run it was replayed from: no latency of this run's own.
        var replayed = fixtureResult(caseID: "g", status: .pass, latencyMs: 120)
        replayed.replayed = true
        try expectReadBack([skipped, longConversation, hugeUsage, suspect, sentinel, tools, replayed])
    }

    @Test("cost, score and a key of its own, which most results lack, read back wherever they first and last appear")
    func sparseColumns() throws {
        let plain = fixtureResult(caseID: "a", status: .pass)
        var priced = fixtureResult(caseID: "b", status: .pass, costUSD: 0.25)
        priced.score = 0.5
        priced.caseScore = 0.75
        var keyed = fixtureResult(caseID: "c", status: .pass)
        keyed.key = "recorded/elsewhere"
        var kept = fixtureResult(caseID: "d", status: .pass, costUSD: 1)
        kept.toolCalls = []
        // Plain rows before, between and after the ones with a column value; one kept whole between them.
        try expectReadBack([plain, plain, priced, plain, kept, keyed, plain, priced, plain, plain])
        try expectReadBack([priced, keyed, kept])
    }

    @Test("a result as a run records it (score, case score, plan index, verdicts) fits a row: nothing is kept whole")
    func recordedResultsFitRows() throws {
        var results: [RequestResult] = []
        for index in 0..<50 {
            var result = fixtureResult(caseID: "c\(index)", status: index % 7 == 0 ? .fail : .pass, latencyMs: 12.5, ttftMs: 3.25,
                                       usage: Usage(inputTokens: 5, outputTokens: 1, source: .reported),
                                       failedAssertion: index % 7 == 0 ? "contains \"ok\"" : nil)
            result.planIndex = index
            result.score = index % 7 == 0 ? 0 : 1
            result.caseScore = result.score
            result.finishReason = "stop"
            result.output = "ok"
            results.append(result)
        }
        let table = ResultTable(results)
        #expect(table.keptWhole.isEmpty, "single-turn results carry a case score; a row has room for it")
        #expect(table.scoresInColumns == 0, "scores of 0 and 1 are held in the rows' flags")
        try expectReadBack(results)
    }

    @Test("scores of 0 and 1 are held in the row, any other (-0, a fraction) in its column, and all read back bit for bit")
    func scoresInRowsOrColumns() throws {
        var results: [RequestResult] = []
        for (score, caseScore) in [(0.0, 1.0), (1.0, 0.0), (-0.0, 1.0), (0.5, 0.0), (1.0, 0.25), (nil, nil), (1.0, nil), (nil, -0.0)] as [(Double?, Double?)] {
            var result = fixtureResult(caseID: "c\(results.count)", status: .pass)
            result.score = score
            result.caseScore = caseScore
            results.append(result)
        }
        try expectReadBack(results)
        let table = ResultTable(results)
        for (index, result) in results.enumerated() {
            #expect(table[index].score?.bitPattern == result.score?.bitPattern)
            #expect(table[index].caseScore?.bitPattern == result.caseScore?.bitPattern)
        }
        // Up to the last row with one in a column: the scores' column holds rows 0–3 (-0 at
        // row 2 and 0.5 at row 3), the case scores' rows 0–7 (0.25 at row 4, -0 at row 7).
        #expect(table.scoresInColumns == 4 + 8)
        #expect(ResultTable(results.filter { [0, 1].contains($0.score ?? 0) && [0, 1].contains($0.caseScore ?? 0)
            && $0.score?.sign != .minus && $0.caseScore?.sign != .minus }).scoresInColumns == 0)
    }

    @Test("long answers go to the spill file and read back byte for byte, also from copies of the table that went on apart")
    func spilledAnswers() throws {
        func answered(_ index: Int, _ output: String) -> RequestResult {
            var result = fixtureResult(caseID: "c\(index)", status: .pass, latencyMs: 10, ttftMs: 5)
            result.output = output
            result.planIndex = index
            return result
        }
        let limit = ResultTable.spillBytes
        let outputs = [String(repeating: "a", count: limit), String(repeating: "b", count: limit + 1),
                       "caf\u{E9} " + String(repeating: "é😀 ", count: 40), "cafe\u{301} " + String(repeating: "é😀 ", count: 40),
                       String(repeating: "long answer \n\t\"quoted\" ", count: 500), ""]
        let results = outputs.enumerated().map { answered($0.offset, $0.element) }
        try expectReadBack(results + results)
        // Rows in memory, and rows two at a time in the file: copies that go on apart write their own blocks.
        for rowsPerBlock in [4_096, 2] {
            var first = ResultTable(results, rowsPerBlock: rowsPerBlock)
            var second = first
            for extra in 10..<13 {
                first.append(answered(extra, String(repeating: "first copy's answer \(extra) ", count: 10)))
                second.append(answered(extra, String(repeating: "second copy's answer \(extra) ", count: 10)))
            }
            for extra in 10..<13 {
                #expect(first[results.count + extra - 10].output == String(repeating: "first copy's answer \(extra) ", count: 10))
                #expect(second[results.count + extra - 10].output == String(repeating: "second copy's answer \(extra) ", count: 10))
                #expect(first[results.count + extra - 10].planIndex == extra && second[results.count + extra - 10].planIndex == extra)
            }
            for index in results.indices { #expect(first[index] == results[index] && second[index] == results[index]) }
            #expect(first[3].output.map { Array($0.utf8) } == Array(outputs[3].utf8), "the decomposed é stays decomposed")
            if rowsPerBlock == 2 { #expect(first.rowBlocks == (inFile: 4, inMemory: 1) && second.rowBlocks == (inFile: 4, inMemory: 1)) }
        }
    }

    @Test("a table's rows go to its temporary file 4,096 at a time and read back from there, the last block's from memory")
    func rowsInTheFile() {
        var results: [RequestResult] = []
        var table = ResultTable()
        for index in 0..<9_000 {
            var result = fixtureResult(caseID: "c\(index % 300)", repeatIndex: index / 300 + 1, status: index % 7 == 0 ? .fail : .pass,
                                       latencyMs: Double(index) / 8, ttftMs: Double(index % 97))
            result.planIndex = index
            results.append(result)
            table.append(result)
        }
        #expect(table.rowBlocks == (inFile: 2, inMemory: 1))
        for index in stride(from: 0, to: results.count, by: 7) { #expect(table[index] == results[index]) }
        #expect(table[8_191] == results[8_191] && table[8_192] == results[8_192] && table[8_999] == results[8_999])
    }

    @Test("many long answers, more than the spill file's read-ahead windows hold, read back in order, backwards and at random")
    func spilledAnswersInAnyOrder() {
        var generator = SplitMix64(seed: 5)
        var table = ResultTable()
        var outputs: [String] = []
        for index in 0..<3_000 {
            let output = "answer \(index): " + String(repeating: "é😀x", count: 20 + Int(generator.next() % 200))
            var result = fixtureResult(caseID: "c\(index)", status: .pass, latencyMs: 1, ttftMs: 1)
            result.output = output
            table.append(result)
            outputs.append(output)
            if index % 500 == 0 { #expect(table[index].output == output, "read while the file still grows") }
        }
        for index in outputs.indices { #expect(table[index].output == outputs[index]) }
        for index in outputs.indices.reversed() { #expect(table[index].output == outputs[index]) }
        for _ in 0..<3_000 {
            let index = Int(generator.next() % UInt64(outputs.count))
            #expect(table[index].output == outputs[index])
        }
    }

    @Test("verdicts that quote their own answer keep the shared parts once and read back exactly, long quotes spilled")
    func verdictsOfTheirOwn() throws {
        var results: [RequestResult] = []
        for index in 0..<40 {
            var result = fixtureResult(caseID: "c\(index % 4)", status: index % 3 == 0 ? .fail : .pass, latencyMs: 10, ttftMs: 5)
            let answer = "answer number \(index) " + String(repeating: "é", count: index * 3)
            result.output = answer
            var contains = AssertionResult(type: "contains", name: "contains \"Paris\"", passed: index % 3 != 0)
            contains.expected = "the answer to contain \"Paris\""
            contains.actual = "\"" + answer + "\""
            contains.message = index % 3 == 0 ? "expected the answer to contain \"Paris\", got \"\(answer)\"" : nil
            var pointer = AssertionResult(type: "jsonPointer", name: "pointer", passed: true)
            pointer.pointer = index % 5 == 0 ? "/items/\(index)" : nil
            pointer.note = index % 7 == 0 ? "read after a code fence" : nil
            pointer.actual = "\"ok\""
            result.assertions = index % 2 == 0 ? [contains, pointer] : [contains]
            results.append(result)
        }
        let table = ResultTable(results)
        #expect(table.keptWhole.isEmpty)
        for index in results.indices { #expect(table.assertions(at: index) == results[index].assertions) }
        try expectReadBack(results)
        // A result whose verdicts say nothing of their own but an `actual` that is the grader's
        // excerpt of the answer (`contains` alone, the odd ones) takes no reference; one whose
        // verdicts say nothing but `actual` takes one a verdict, the others four: a message
        // (index % 3 == 0), a pointer (% 5) or a note (% 7) takes four.
        let references = results.indices.reduce(0) { total, index in
            let verdicts = results[index].assertions
            let ownParts = verdicts.contains { $0.message != nil || $0.pointer != nil || $0.note != nil }
            let excerpt = results[index].output.map { Grader.quote($0, limit: Grader.excerptLimit) }
            if !ownParts, verdicts.allSatisfy({ $0.actual == nil || $0.actual == excerpt }) { return total }
            return total + verdicts.count * (ownParts ? 4 : 1)
        }
        #expect(references > 0 && results.indices.contains { index in index % 2 == 1 && index % 3 != 0 && index % 5 != 0 && index % 7 != 0 })
        #expect(table.verdictReferences == references)
        #expect(references < results.reduce(0) { $0 + 4 * $1.assertions.count })
    }

    @Test("verdicts that quote only the grader's excerpt of the answer, or nothing, take no reference and read back exactly")
    func excerptMasks() throws {
        var results: [RequestResult] = []
        for (index, answer) in ["Paris", "The capital of France is Paris.", String(repeating: "long answer é ", count: 30), ""].enumerated() {
            var result = fixtureResult(caseID: "c\(index)", status: .fail, latencyMs: 10)
            result.output = answer
            var verdicts: [AssertionResult] = []
            // 33 verdicts on the first (more than a mask holds), 3 on the others: excerpt, none, excerpt.
            for verdict in 0..<(index == 0 ? 33 : 3) {
                var check = AssertionResult(type: "contains", name: "contains \"Rome\" \(verdict)", passed: false)
                check.actual = verdict % 2 == 0 ? Grader.quote(answer, limit: Grader.excerptLimit) : nil
                verdicts.append(check)
            }
            result.assertions = verdicts
            results.append(result)
        }
        try expectReadBack(results)
        let table = ResultTable(results)
        for index in results.indices { #expect(table.assertions(at: index) == results[index].assertions) }
        // Only the first result's 33 verdicts take references, one each.
        #expect(table.verdictReferences == 33)
        #expect(ResultTable(results.dropFirst()).verdictReferences == 0)
    }

    @Test("a verdict quoting its own answer as the grader does is made again from the answer, any other quote kept as it is")
    func graderExcerpts() throws {
        let answers = ["Lyon, answer 7", "say \"hi\"\nand a \\ back", String(repeating: "long answer é ", count: 30), "", "Paris"]
        var results: [RequestResult] = []
        for (index, answer) in answers.enumerated() {
            var result = fixtureResult(caseID: "c\(index)", status: .fail, latencyMs: 10)
            result.output = answer
            var contains = AssertionResult(type: "contains", name: "contains \"Rome\"", passed: false)
            contains.actual = TextChecks.excerpt(answer)
            var other = AssertionResult(type: "regex", name: "regex", passed: false)
            // Quoted otherwise: cut at 80 characters, or not a quote of this answer at all.
            other.actual = index % 2 == 0 ? Grader.quote(answer) : "\"" + answer + "\" "
            result.assertions = [contains, other]
            results.append(result)
        }
        var unanswered = fixtureResult(caseID: "none", status: .error)
        var quoted = AssertionResult(type: "contains", name: "contains \"Rome\"", passed: false)
        quoted.actual = "\"\""
        unanswered.assertions = [quoted]
        results.append(unanswered)
        try expectReadBack(results)
        let table = ResultTable(results)
        for index in results.indices { #expect(table.assertions(at: index) == results[index].assertions) }
        // Spilled: the two answers of more than 15 bytes and the long one's quote cut at 80
        // characters, not its excerpt. In memory: the two quotes that are not a quote of their
        // answer and the unanswered result's; a short answer's 80-character quote is its
        // excerpt, made again.
        #expect(table.textsHeld.spilled == 3)
        let plain = ResultTable(results.map { result in
            var result = result
            result.assertions = result.assertions.map { var verdict = $0; verdict.actual = nil; return verdict }
            return result
        })
        #expect(table.textsHeld.inMemory - plain.textsHeld.inMemory == 3)
    }

    @Test("a result's verdicts with a judge's call are found without reading what the others quote")
    func judgedVerdicts() throws {
        var quoting = fixtureResult(caseID: "a", status: .fail)
        quoting.output = "Lyon"
        var contains = AssertionResult(type: "contains", name: "contains \"Paris\"", passed: false)
        contains.actual = TextChecks.excerpt("Lyon")
        quoting.assertions = [contains]
        var judged = fixtureResult(caseID: "b", status: .fail)
        judged.assertions = [AssertionResult(type: "judge", name: "judge: polite", passed: false, message: "rude",
                                             judge: JudgeCall(backend: "cloud", latencyMs: 12.5, error: "timed out")),
                             contains]
        var whole = judged
        whole.toolCalls = []
        let results = [quoting, judged, whole, fixtureResult(caseID: "c", status: .pass)]
        let table = ResultTable(results)
        for (index, result) in results.enumerated() {
            #expect(table.judgedAssertions(at: index) == result.assertions.filter { $0.judge != nil })
        }
        #expect(table.judgedAssertions(at: 1).count == 1)
        #expect(table.keptWhole.count == 1)
    }

    @Test("when the spill file cannot be written (a full disk), the answers it could not take stay in memory and every result reads back")
    func spillFileFull() throws {
        // 600 answers of 300 bytes: the file takes its first 64 KiB write and fails the second.
        let results = (0..<600).map { index in
            var result = fixtureResult(caseID: "c\(index)", status: .pass, latencyMs: 10)
            result.output = String(repeating: "answer \(index) ", count: 40).prefix(300) + ""
            return result
        }
        var table = ResultTable(rowsPerBlock: 64, spillFileBytes: 64 * 1024 + 100)
        for result in results { table.append(result) }
        for index in results.indices { #expect(table[index] == results[index]) }
        let (inMemory, spilled) = table.textsHeld
        // The answers of the failed write are still spans, served from memory; the rest are texts.
        #expect(spilled > 64 * 1024 / 300 && spilled < 600 && inMemory >= 600 - spilled)
        var whole = ResultTable(rowsPerBlock: 64)
        for result in results { whole.append(result) }
        #expect(whole.textsHeld.spilled == 600)
    }

    @Test("a row is a fraction of a result's fields, so a million results fit the report's memory budget")
    func rowSize() {
        #expect(ResultTable.bytesPerRow <= 96)
        #expect(MemoryLayout<RequestResultFields>.size >= 8 * ResultTable.bytesPerRow)
    }

    @Test("a case run's statuses and own latencies read from a table are those of its requests, in turn order")
    func statusesAndLatenciesOfCaseRuns() {
        var replayed = fixtureResult(caseID: "a", turn: 2, turns: 3, status: .pass, latencyMs: 70)
        replayed.replayed = true
        let results = [
            fixtureResult(caseID: "a", turn: 3, turns: 3, status: .error, errorKind: .timeout), replayed,
            fixtureResult(caseID: "a", turn: 1, turns: 3, status: .pass, latencyMs: 12.5),
            fixtureResult(caseID: "b", status: .fail, latencyMs: 30, failedAssertion: "contains"),
        ]
        for aggregate in [RunAggregate(ResultTable(results)), RunAggregate(caseRuns: RunAggregate(results).caseRuns.map { $0 })] {
            var seen: [[String]] = []
            for index in aggregate.caseRuns.indices {
                var run: [String] = []
                aggregate.caseRuns.forEachStatusAndOwnLatency(of: index) { status, latency in
                    run.append("\(status.rawValue) \(latency.map { String($0) } ?? "nil")")
                }
                seen.append(run)
            }
            #expect(seen == [["pass 12.5", "pass nil", "error nil"], ["fail 30.0"]])
        }
    }

    @Test("an aggregate of a table equals one of the same results as an array, turns found by plan index or by key")
    func aggregateOfTable() {
        func turn(_ caseID: String, _ turn: Int, plan: Int?) -> RequestResult {
            var result = fixtureResult(caseID: caseID, turn: turn, turns: 2, status: turn == 2 && caseID == "b" ? .fail : .pass,
                                       latencyMs: Double(turn * 10))
            result.planIndex = plan
            return result
        }
        let planned = [turn("b", 2, plan: 1), turn("a", 1, plan: 0), turn("b", 1, plan: 1), turn("a", 2, plan: 0)]
        let unplanned = [turn("b", 2, plan: nil), turn("a", 1, plan: nil), turn("b", 1, plan: nil), turn("a", 2, plan: nil)]
        for results in [planned, unplanned] {
            let aggregate = RunAggregate(ResultTable(results))
            #expect(aggregate.caseRuns.map(\.requests) == RunAggregate(results).caseRuns.map(\.requests))
            #expect(aggregate.caseRuns.map { $0.requests.map(\.turn) } == [[1, 2], [1, 2]])
            #expect(aggregate.statuses == (results == planned ? [.pass, .fail] : [.fail, .pass]))
            #expect(aggregate.groups.first?.cases == 2)
        }
    }
}
