import Foundation
import Testing
@testable import EvalBench

/// A run on two fake backends, unsharded and in 3 shards, and `RunMerge` over the shards.
@Suite("evalbench merge: the shards of a run give one run's reports, gates and exit status", .serialized)
struct MergeTests {
    /// 12 cases, every third a 2-turn conversation; the cases of odd index fail on backend b.
    private let suite = Suite(name: "geo", cases: (0..<12).map { index in
        EvalCase(id: "case-\(index)", turns: (0..<(index % 3 == 0 ? 2 : 1)).map { turn in
            Turn(prompt: "q\(index)-\(turn)", expect: [Assertion(.contains("q", ignoreCase: false))])
        })
    })

    private func request(_ out: URL, shard: Shard? = nil) -> RunRequest {
        var request = RunRequest(suitePaths: [], outputDirectory: out.path, gate: Gate(minPassRate: 0), environment: [:])
        request.sources = [.suite(suite)]
        request.configValue = Config(file: nil, backends: [])
        request.repeatCount = 2
        request.providedBackends = [
            FixedAnswerBackend(name: "a"),
            FixedAnswerBackend(name: "b") { prompt in Int(prompt.dropFirst().prefix { $0 != "-" })! % 2 == 1 ? "wrong" : prompt },
        ]
        request.shard = shard.map { ShardRequest.part($0, shardsGiven: nil) }
        return request
    }

    @discardableResult
    private func run(_ request: RunRequest) async throws -> RunOutcome {
        try await EvalRun.execute(try EvalRun.load(request), request, transport: DefaultStreamTransport())
    }

    /// An unsharded run and its 3 shards, each in `work`.
    private func runs(in work: URL) async throws -> (whole: URL, shards: [URL]) {
        let whole = work.appendingPathComponent("whole")
        try await run(request(whole))
        var shards: [URL] = []
        for index in 1...3 {
            let out = work.appendingPathComponent("shard-\(index)")
            try await run(request(out, shard: Shard(index: index, count: 3)))
            shards.append(out)
        }
        return (whole, shards)
    }

    private func merge(_ parts: [URL], into out: URL, _ adjust: (inout MergeRequest) -> Void = { _ in }) throws -> MergeOutcome {
        var request = MergeRequest(partDirectories: parts.map(\.path), outputDirectory: out.path)
        request.gate = Gate(minPassRate: 0)
        request.environment = [:]
        adjust(&request)
        return try RunMerge.execute(request)
    }

    private func problems(_ body: () throws -> Void) -> [String] {
        do {
            try body()
            return []
        } catch let error as LoadError {
            return error.diagnostics.map { "\($0.file): \($0.message) (\($0.fix ?? ""))" }
        } catch {
            return ["not a load error: \(error)"]
        }
    }

    private func text(_ directory: URL, _ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("3 shards run and merged: the case runs, counts, pass rates and intervals of summary.csv equal one unsharded run's")
    func shardsEqualOneRun() async throws {
        let work = PackagePaths.temporaryDirectory("merge-equal")
        defer { try? FileManager.default.removeItem(at: work) }
        let (whole, shards) = try await runs(in: work)
        let merged = try merge(shards, into: work.appendingPathComponent("merged"))
        let single = try RunDirectory(whole).readResults()
        #expect(merged.results.map(\.key).sorted() == single.map(\.key).sorted())
        #expect(merged.verdict.exitStatus == .success && merged.missing.isEmpty)
        let exact = ["backend", "reasoning", "variant", "cases", "passed", "failed", "errors", "skipped",
                     "pass_rate", "pass_rate_low", "pass_rate_high"]
        let table = { (directory: URL) throws -> [[String]] in
            let rows = try parseCSV(try self.text(directory, RunDirectory.FileName.summaryCSV))
            let columns = exact.map { rows[0].firstIndex(of: $0)! }
            return rows.map { row in columns.map { row[$0] } }
        }
        let mergedTable = try table(merged.outputDirectory)
        #expect(mergedTable == (try table(whole)))
        #expect(mergedTable.count == 3, "a header and backends a and b: \(mergedTable)")
        let metadata = try RunDirectory(merged.outputDirectory).readMetadata()
        #expect(metadata.shard == nil && metadata.mergedFrom == shards.map(\.path))
    }

    /// One unsharded run in `work/whole`, its results split by case into three shard parts
    /// (`work/part-K`, each result passed through `rewrite` with its shard's index) with the
    /// run.json each shard would have written: the whole run's directory, its results and the parts.
    private func splitRun(in work: URL, rewrite: (Int, RequestResult) -> RequestResult = { $1 }) async throws
        -> (whole: URL, results: [RequestResult], parts: [URL]) {
        let whole = work.appendingPathComponent("whole")
        try await run(request(whole))
        let results = try RunDirectory(whole).readResults()
        let metadata = try RunDirectory(whole).readMetadata()
        let plan = try EvalRun.load(request(whole)).plan
        var parts: [URL] = []
        for index in 1...3 {
            let shard = Shard(index: index, count: 3)
            let part = RunDirectory(work.appendingPathComponent("part-\(index)"))
            try FileManager.default.createDirectory(at: part.url, withIntermediateDirectories: true)
            try part.writeResults(results.filter { shard.contains(suite: $0.suite, caseID: $0.caseID) }.map { rewrite(index, $0) })
            var partMetadata = metadata
            partMetadata.shard = plan.sharded(shard).record
            try partMetadata.write(to: part.metadata)
            parts.append(part.url)
        }
        return (whole, results, parts)
    }

    @Test("merging an unsharded run's results split by shard rewrites its reports byte for byte, latency percentiles included")
    func exactReports() async throws {
        let work = PackagePaths.temporaryDirectory("merge-exact")
        defer { try? FileManager.default.removeItem(at: work) }
        let (whole, results, parts) = try await splitRun(in: work)
        let merged = try merge(parts.reversed(), into: work.appendingPathComponent("merged"))
        for name in [RunDirectory.FileName.summaryCSV, RunDirectory.FileName.metricsCSV, RunDirectory.FileName.resultsCSV,
                     RunDirectory.FileName.recommendationCSV, RunDirectory.FileName.junit] {
            #expect(try text(merged.outputDirectory, name) == (try text(whole, name)), "\(name)")
        }
        // The run's span is read back from run.json, which keeps whole seconds; the rest is the same.
        let withoutSpan = { (directory: URL) throws -> [Substring] in
            try self.text(directory, RunDirectory.FileName.summaryMarkdown).split(separator: "\n").filter { !$0.hasPrefix("Run from ") }
        }
        #expect(try withoutSpan(merged.outputDirectory) == (try withoutSpan(whole)))
        let latencies = RunAggregate(merged.results).groups.map(\.latencyP95Ms)
        #expect(latencies == RunAggregate(results).groups.map(\.latencyP95Ms) && latencies.allSatisfy { $0 != nil })
    }

    @Test("a missing shard is refused by name with its cases; --allow-partial merges the rest and says what is missing")
    func missingShard() async throws {
        let work = PackagePaths.temporaryDirectory("merge-missing")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        let missing = suite.cases.map(\.id).filter { Shard.of(suite: "geo", caseID: $0, count: 3) == 2 }
        #expect(!missing.isEmpty)
        let refused = problems { _ = try merge([shards[0], shards[2]], into: work.appendingPathComponent("m")) }
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first?.contains("shard 2/3 is missing: no results for \(missing.count) cases: "
                                        + missing.map { "geo/\($0)" }.joined(separator: ", ")) == true, "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("m").path), "nothing written")

        let partial = try merge([shards[0], shards[2]], into: work.appendingPathComponent("p")) { $0.allowPartial = true }
        #expect(partial.missing.count == 1 && partial.missing[0].hasPrefix("shard 2/3 is missing"))
        #expect(partial.verdict.notes.contains { $0.hasPrefix("partial merge: shard 2/3 is missing") })
        #expect(Set(partial.results.map(\.caseID)).isDisjoint(with: missing))
    }

    @Test("a partial merge says so in summary.md, the step summary, junit.xml, report.html and run.json, and recommends nothing")
    func partialMergeReports() async throws {
        let work = PackagePaths.temporaryDirectory("merge-partial-reports")
        defer { try? FileManager.default.removeItem(at: work) }
        let (whole, shards) = try await runs(in: work)
        let stepSummary = work.appendingPathComponent("step-summary.md")
        let partial = try merge([shards[0], shards[2]], into: work.appendingPathComponent("p")) {
            $0.allowPartial = true
            $0.environment = ["GITHUB_STEP_SUMMARY": stepSummary.path]
        }
        let metadata = try RunDirectory(partial.outputDirectory).readMetadata()
        #expect(metadata.partialMerge == partial.missing && partial.missing.count == 1)
        let headline = "Partial merge: \(partial.missing[0]); these figures cover only the results merged"
        #expect(metadata.partialMergeHeadline?.hasPrefix(headline) == true)
        let summary = try text(partial.outputDirectory, RunDirectory.FileName.summaryMarkdown)
        #expect(summary.hasPrefix("> **\(MarkdownTable.escape(headline))"), "\(summary.prefix(300))")
        #expect(summary.contains("## Recommendation\n\nNo recommendation: the merge is partial"))
        #expect(try String(contentsOf: stepSummary, encoding: .utf8).contains("Partial merge: shard 2/3 is missing"))
        #expect(try text(partial.outputDirectory, RunDirectory.FileName.junit)
                    .contains("<testcase classname=\"evalbench\" name=\"merge complete\" time=\"0\">\n      <error type=\"partial_merge\" message=\"Partial merge: shard 2/3 is missing"))
        let html = try text(partial.outputDirectory, RunDirectory.FileName.html)
        #expect(html.contains("<strong>Partial merge: shard 2/3 is missing") && html.contains("No recommendation: the merge is partial"))
        let rows = try text(partial.outputDirectory, RunDirectory.FileName.recommendationCSV).split(whereSeparator: \.isNewline).dropFirst()
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasSuffix(",false") }, "no candidate of a partial merge is marked recommended")

        let complete = try merge(shards, into: work.appendingPathComponent("m"))
        #expect(try RunDirectory(complete.outputDirectory).readMetadata().partialMerge == nil)
        #expect(try !text(complete.outputDirectory, RunDirectory.FileName.summaryMarkdown).contains("Partial merge"))
        // The same testcases and outcomes; their times are each run's own (the whole run and the shards ran apart).
        func untimed(_ junit: String) -> String { junit.replacingOccurrences(of: #" time="[0-9.]+""#, with: "", options: .regularExpression) }
        #expect(untimed(try text(complete.outputDirectory, RunDirectory.FileName.junit)) == untimed(try text(whole, RunDirectory.FileName.junit)))
    }

    @Test("an --out that is a file is refused with the other problems, before anything is written")
    func outputIsAFile() async throws {
        let work = PackagePaths.temporaryDirectory("merge-out-file")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        let file = work.appendingPathComponent("afile")
        try Data("x".utf8).write(to: file)
        let refused = problems { _ = try merge(shards, into: file) }
        #expect(refused == ["\(file.path): --out \(file.path) is a file, not a directory (name a directory for --out (evalbench creates it when it is missing), or move the file)"])
        #expect(try String(contentsOf: file, encoding: .utf8) == "x")

        let intoAPart = problems { _ = try merge(shards, into: shards[1]) }
        #expect(intoAPart == ["\(shards[1].path): --out and a part name the same directory, \(shards[1].path): its results would be overwritten "
                              + "(write to another directory with --out, and keep \(shards[1].path) as it is)"], "\(intoAPart)")
    }

    @Test("an unfinished shard is named with the cases it has no results for")
    func unfinishedShard() async throws {
        let work = PackagePaths.temporaryDirectory("merge-unfinished")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        let part = RunDirectory(shards[0])
        let results = try part.readResults()
        let dropped = results[0].caseID
        try part.writeResults(results.filter { $0.caseID != dropped })
        let refused = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(refused.count == 1 && refused[0].contains("shard 1/3 (\(shards[0].path)) is incomplete: "), "\(refused)")
        #expect(refused.first?.contains("no results for 1 case: geo/\(dropped)") == true, "\(refused)")
        #expect(refused.first?.contains("--resume \(shards[0].path)") == true, "\(refused)")
    }

    @Test("an unfinished shard with results for every case names its unfinished case runs, short turns and unstarted ones")
    func unfinishedCaseRunsNamed() async throws {
        let work = PackagePaths.temporaryDirectory("merge-unfinished-runs")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        // A shard with a 2-turn case and another case.
        let readBack = try shards.map { try RunDirectory($0).readResults() }
        let chosen = try #require(readBack.indices.first { Set(readBack[$0].map(\.caseID)).count > 1 && readBack[$0].contains { $0.turn == 2 } })
        let part = RunDirectory(shards[chosen])
        let results = try part.readResults()
        let record = try #require(try part.readMetadata().shard)
        // The second turn of one case run, and the whole of another case run whose case has other results.
        let shortened = try #require(results.first { $0.turn == 2 })
        let unstarted = try #require(results.first { $0.caseID != shortened.caseID && $0.repeatIndex == 2 })
        try part.writeResults(results.filter { !($0.key == shortened.key && $0.turn == 2) && $0.key != unstarted.key })
        let refused = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first?.contains("; 2 of \(record.caseRuns) case runs unfinished: "
                                        + [shortened.key + " (1 of 2 turns)", unstarted.key + " (no turn)"].sorted().joined(separator: ", ")
                                        + " (") == true, "\(refused)")
        #expect(refused.first?.contains("no results for") == false, "every case has results: \(refused)")
    }

    @Test("past 20 names, merge's lists end with 'and N more': the first 20 in plan order, then how many of the rest it did not name")
    func longListsEndWithTheCountOfTheRest() throws {
        func result(_ repeatIndex: Int, turn: Int) -> RequestResult {
            RequestResult(key: "geo/c/default/a/none/\(repeatIndex)", suite: "geo", caseID: "c", turn: turn, turns: 2, variant: "default",
                          backend: "a", model: nil, reasoning: .none, repeatIndex: repeatIndex, tags: [], status: .pass, instructions: nil, prompt: "q")
        }
        func unfinished(short: ClosedRange<Int>, planned: Int) throws -> String {
            // Repeats 1 and 2 finished both turns, the short ones have turn 1 of 2, the rest left no result.
            let record = ShardRecord(index: 1, count: 1, partitionKey: Shard.partitionKey, planSHA256: "", cases: ["geo/c"],
                                     caseRuns: planned, requests: 2 * planned,
                                     caseRunsOfEachCase: ["geo": (1...planned).map { "default/a/none/\($0)" }])
            let results = ResultTable([1, 2].flatMap { [result($0, turn: 1), result($0, turn: 2)] } + short.map { result($0, turn: 1) })
            let plan = try MergePlan(record, file: "run.json", parts: [])
            let coverage = plan.coverage(of: results, shard: 1)
            #expect(coverage.unplanned.count == 0 && coverage.otherShards.count == 0)
            return MergeCheck.unfinished(plan.shortfall(coverage, shard: 1, limit: MergeCheck.namesShown))
        }
        let named = (3...22).map { "geo/c/default/a/none/\($0) (1 of 2 turns)" }.joined(separator: ", ")
        // 28 unfinished of 30 planned: 23 with a turn missing, 5 that left no result; 20 named, 8 counted.
        #expect(try unfinished(short: 3...25, planned: 30) == "; 28 of 30 case runs unfinished: \(named) and 8 more")
        #expect(try unfinished(short: 3...22, planned: 22) == "; 20 of 22 case runs unfinished: \(named)", "20 fit: no count")

        #expect(MergeCheck.names((1...23).map { "geo/c\($0)" })
                == "23 cases: " + (1...20).map { "geo/c\($0)" }.joined(separator: ", ") + " and 3 more")
        #expect(MergeCheck.names((1...20).map { "geo/c\($0)" }) == "20 cases: " + (1...20).map { "geo/c\($0)" }.joined(separator: ", "))
    }

    /// Diagnostics of a `LoadError` that `body` throws; none when it throws none.
    private func diagnostics(_ body: () throws -> Void) -> [Diagnostic] {
        do {
            try body()
            return []
        } catch let error as LoadError {
            return error.diagnostics
        } catch {
            return [Diagnostic(file: "", message: "not a load error: \(error)")]
        }
    }

    @Test("a shard missing a planned case run but holding a result of an unplanned case is refused, naming both; --allow-partial refuses the stray too")
    func unplannedResultRefused() async throws {
        let work = PackagePaths.temporaryDirectory("merge-unplanned")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        let part = RunDirectory(shards[1])
        var results = try part.readResults()
        let record = try #require(try part.readMetadata().shard)
        // One case run gone, one result of a case the plan does not have: as many lines as before.
        let dropped = try #require(results.first { $0.repeatIndex == 2 && $0.turns == 1 })
        results.removeAll { $0.key == dropped.key }
        var stray = results[0]
        stray.caseID = "zzz"
        stray.key = "geo/zzz/default/a/none/1"
        results.append(stray)
        try part.writeResults(results)
        let strayLine = "\(part.results.path): 1 result of no case run its run.json plans (the first: geo/zzz/default/a/none/1 turn \(stray.turn))"
        let unfinished = "shard 2/3 (\(shards[1].path)) is incomplete: \(record.requests - 1) of \(record.requests) requests recorded; "
            + "1 of \(record.caseRuns) case runs unfinished: \(dropped.key) (no turn)"
        let refused = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(refused.count == 2, "\(refused)")
        #expect(refused.contains { $0.hasPrefix(strayLine) }, "\(refused)")
        #expect(refused.contains { $0.hasPrefix("\(shards[1].path): \(unfinished) (") }, "\(refused)")
        let partial = problems { _ = try merge(shards, into: work.appendingPathComponent("p")) { $0.allowPartial = true } }
        #expect(partial.count == 1 && partial[0].hasPrefix(strayLine), "\(partial)")

        // Without the stray, --allow-partial merges the rest and says which case run is missing.
        try part.writeResults(results.dropLast())
        let merged = try merge(shards, into: work.appendingPathComponent("q")) { $0.allowPartial = true }
        #expect(merged.missing == [unfinished], "\(merged.missing)")
        #expect(!merged.results.contains { $0.key == dropped.key || $0.caseID == "zzz" })
    }

    @Test("a result of another shard's case is refused, naming the part, the result and its shard")
    func otherShardsResultRefused() async throws {
        let work = PackagePaths.temporaryDirectory("merge-other-shard")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        let borrowed = try #require(try RunDirectory(shards[0]).readResults().first)
        let part = RunDirectory(shards[1])
        try part.writeResults(try part.readResults() + [borrowed])
        let refused = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) { $0.allowPartial = true } }
        #expect(refused == ["\(part.results.path): 1 result of cases of other shards (the first: \(borrowed.key) turn \(borrowed.turn), of shard 1/3); "
                            + "shard 2/3 runs only its own cases (pass the --out directory of each `evalbench run --shard K/N` as it was written, once)"],
                "\(refused)")
    }

    @Test("a shard whose results hold repeats its plan does not (resumed with another --repeat) is refused, with the count and the first")
    func resultsOfAnotherRepeatRefused() async throws {
        let work = PackagePaths.temporaryDirectory("merge-other-repeat")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        // Shard 1 run with --repeat 3; its results put beside the run.json of shard 1 with --repeat 2, as a resume keeps them.
        var three = request(work.appendingPathComponent("three"), shard: Shard(index: 1, count: 3))
        three.repeatCount = 3
        try await run(three)
        let results = try RunDirectory(work.appendingPathComponent("three")).readResults()
        let extra = results.filter { $0.repeatIndex == 3 }
        #expect(!extra.isEmpty)
        try RunDirectory(shards[0]).writeResults(results)
        let refused = diagnostics { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first?.file == RunDirectory(shards[0]).results.path)
        #expect(refused.first?.message.hasPrefix("\(extra.count) results of no case run its run.json plans (the first: \(extra[0].key) turn 1)") == true,
                "\(refused)")
        #expect(refused.first?.fix?.contains("--resume with other --repeat") == true)
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("m").path))
    }

    @Test("results that kept another plan's indexes are merged at their case runs' places in this plan, reports byte for byte as one run's")
    func staleIndexesReplaced() async throws {
        let work = PackagePaths.temporaryDirectory("merge-stale-index")
        defer { try? FileManager.default.removeItem(at: work) }
        // Shard 2's results carry the indexes of a plan with more cases before them; shard 3's none.
        let (whole, results, parts) = try await splitRun(in: work) { index, result in
            var result = result
            result.planIndex = index == 3 ? nil : (index == 2 ? result.planIndex.map { $0 + 1_000 } : result.planIndex)
            return result
        }
        let merged = try merge(parts, into: work.appendingPathComponent("merged"))
        let planIndexes = { (results: [RequestResult]) in
            Dictionary(uniqueKeysWithValues: results.map { ("\($0.key) \($0.turn)", $0.planIndex) })
        }
        #expect(planIndexes(Array(merged.results)) == planIndexes(results))
        #expect(try RunDirectory(merged.outputDirectory).readResults().map(\.planIndex) == results.compactMap(\.planIndex).sorted())
        for name in [RunDirectory.FileName.resultsCSV, RunDirectory.FileName.summaryCSV, RunDirectory.FileName.casesCSV, RunDirectory.FileName.junit] {
            #expect(try text(merged.outputDirectory, name) == (try text(whole, name)), "\(name)")
        }
    }

    @Test("parts whose run.json predates caseRunsOfEachCase merge as before: case runs taken from the results, unknown cases refused")
    func recordWithoutCaseRuns() async throws {
        let work = PackagePaths.temporaryDirectory("merge-old-record")
        defer { try? FileManager.default.removeItem(at: work) }
        let (whole, shards) = try await runs(in: work)
        for shard in shards {
            let file = RunDirectory(shard).metadata
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            var record = try #require(json["shard"] as? [String: Any])
            #expect(record.removeValue(forKey: "caseRunsOfEachCase") != nil)
            json["shard"] = record
            try JSONSerialization.data(withJSONObject: json).write(to: file)
        }
        let merged = try merge(shards, into: work.appendingPathComponent("merged"))
        #expect(merged.results.map(\.key).sorted() == (try RunDirectory(whole).readResults()).map(\.key).sorted() && merged.missing.isEmpty)

        let part = RunDirectory(shards[2])
        var results = try part.readResults()
        let dropped = try #require(results.first { $0.repeatIndex == 2 })
        results.removeAll { $0.key == dropped.key }
        var stray = results[0]
        stray.caseID = "zzz"
        stray.key = "geo/zzz/default/a/none/1"
        try part.writeResults(results + [stray])
        let refused = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(refused.count == 2, "\(refused)")
        #expect(refused.contains { $0.hasPrefix("\(part.results.path): 1 result of no case run its run.json plans (the first: geo/zzz/") })
        #expect(refused.contains { $0.contains("is incomplete") && $0.contains("\(dropped.key) (") }, "\(refused)")
    }

    /// Marks each shard interrupted with its last `dropped[i]` results gone, as Ctrl-C leaves a part.
    private func interrupt(_ shards: [URL], dropping dropped: [Int]) throws -> (unfinished: Int, planned: Int) {
        var planned = 0
        for (shard, count) in zip(shards, dropped) {
            let part = RunDirectory(shard)
            let results = try part.readResults()
            try part.writeResults(Array(results.dropLast(count)))
            var metadata = try part.readMetadata()
            let requests = try #require(metadata.shard?.requests)
            metadata.interruption = RunMetadata.Interruption(unfinishedRequests: count, plannedRequests: requests)
            try metadata.write(to: part.metadata)
            planned += requests
        }
        return (dropped.reduce(0, +), planned)
    }

    @Test("interrupted parts make an interrupted merge: every part's unfinished requests counted, the parts named, gates not applied")
    func interruptedParts() async throws {
        let work = PackagePaths.temporaryDirectory("merge-interrupted")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        let (unfinished, planned) = try interrupt(shards, dropping: [3, 1, 2])
        let refused = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(refused.count == 3 && refused.allSatisfy { $0.contains("is incomplete") }, "\(refused)")

        let merged = try merge(shards, into: work.appendingPathComponent("p")) { $0.allowPartial = true; $0.gate = Gate(minPassRate: 1) }
        let expected = RunMetadata.Interruption(unfinishedRequests: unfinished, plannedRequests: planned, parts: shards.map(\.path))
        #expect(merged.interruption == expected)
        #expect(try RunDirectory(merged.outputDirectory).readMetadata().interruption == expected)
        #expect(merged.verdict.exitStatus == .interrupted, "\(merged.verdict)")
        #expect(merged.verdict.reasons == ["\(unfinished) of \(planned) planned requests did not run; the gates were not applied (finish "
                                           + shards.map(\.path).joined(separator: ", ") + " with `evalbench run ... --resume DIR` and merge again)"])
        let headline = "Interrupted: \(unfinished) of \(planned) planned requests did not run"
        #expect(try text(merged.outputDirectory, RunDirectory.FileName.summaryMarkdown).hasPrefix("> **\(headline)"))
        #expect(try text(merged.outputDirectory, RunDirectory.FileName.junit).contains("<error type=\"interrupted\" message=\"\(headline)"))
        #expect(!expected.headline.contains("(finish it with --resume)") && expected.headline.contains("and merge again"))
    }

    @Test("parts of different suites, configs, matrices or splits, a part given twice and an unsharded run are refused, each named")
    func mismatchedParts() async throws {
        let work = PackagePaths.temporaryDirectory("merge-mismatch")
        defer { try? FileManager.default.removeItem(at: work) }
        let (whole, shards) = try await runs(in: work)
        let twice = problems { _ = try merge(shards + [shards[1]], into: work.appendingPathComponent("m")) }
        #expect(twice.contains { $0.contains("shard 2/3 is given 2 times") }, "\(twice)")
        let unsharded = problems { _ = try merge(shards + [whole], into: work.appendingPathComponent("m")) }
        #expect(unsharded.contains { $0.hasPrefix(whole.path) && $0.contains("not a shard") }, "\(unsharded)")

        let edited = RunDirectory(shards[1])
        let original = try edited.readMetadata()
        var changed = original
        changed.suites[0].sha256 = String(repeating: "0", count: 64)
        changed.configSHA256 = String(repeating: "1", count: 64)
        changed.shard?.planSHA256 = String(repeating: "2", count: 64)
        changed.toolVersion = "9.9.9"
        try changed.write(to: edited.metadata)
        let different = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(different.count == 4, "\(different)")
        #expect(different.contains { $0.contains("was run by evalbench 9.9.9, but \(shards[0].path) by \(original.toolVersion)") })
        #expect(different.contains { $0.hasPrefix(shards[1].path) && $0.contains("ran suite 'geo' with sha256 0000") })
        #expect(different.contains { $0.contains("ran a config with sha256 1111") })
        #expect(different.contains { $0.contains("planned a different matrix") })

        changed = original
        changed.shard?.count = 4
        try changed.write(to: edited.metadata)
        let split = problems { _ = try merge(shards, into: work.appendingPathComponent("m")) }
        #expect(split.contains { $0.contains("is shard 2/4 but \(shards[0].path) is shard 1/3") }, "\(split)")
    }

    @Test("merge applies the gates and --baseline as one run: exit 1 as the unsharded run, compare.md against the baseline")
    func gatesAndBaseline() async throws {
        let work = PackagePaths.temporaryDirectory("merge-gates")
        defer { try? FileManager.default.removeItem(at: work) }
        let (whole, shards) = try await runs(in: work)
        var strict = request(work.appendingPathComponent("strict"))
        strict.gate = Gate(minPassRate: 0.9)
        let single = try await run(strict)
        let merged = try merge(shards, into: work.appendingPathComponent("strict-merged")) { $0.gate = Gate(minPassRate: 0.9) }
        #expect(single.verdict.exitStatus == .gateFailed)
        #expect(merged.verdict == single.verdict)
        // The reports open with the same verdict, and run.json keeps it for `evalbench report`.
        let recorded = try RunDirectory(merged.outputDirectory).readMetadata().verdict
        let singleRecorded = try RunDirectory(single.outputDirectory).readMetadata().verdict
        #expect(recorded != nil && recorded == singleRecorded)
        #expect(try text(merged.outputDirectory, "summary.md").contains("## Verdict\n\n**FAIL**: exit 1"))

        let compared = try merge(shards, into: work.appendingPathComponent("compared")) { $0.baselineDirectory = whole.path }
        #expect(compared.comparison?.isRegression == false && compared.verdict.exitStatus == .success)
        #expect(FileManager.default.fileExists(atPath: compared.outputDirectory.appendingPathComponent("compare.md").path))
    }

    @Test("merge --baseline shows the baseline and its flips in report.html and names it in run.json, as run --baseline does")
    func baselineInReports() async throws {
        let work = PackagePaths.temporaryDirectory("merge-baseline")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, shards) = try await runs(in: work)
        // A baseline in which backend b answered every case: its odd cases flip to fail now.
        let baseline = work.appendingPathComponent("baseline")
        var earlier = request(baseline)
        earlier.providedBackends = [FixedAnswerBackend(name: "a"), FixedAnswerBackend(name: "b")]
        try await run(earlier)
        var compared = request(work.appendingPathComponent("compared"))
        compared.baselineDirectory = baseline.path
        let single = try await run(compared)
        let merged = try merge(shards, into: work.appendingPathComponent("merged")) { $0.baselineDirectory = baseline.path }
        let marks = { (directory: URL) throws -> [Int] in
            let html = try self.text(directory, RunDirectory.FileName.html)
            return ["data-baseline-status=", "data-flipped=\"true\"", "<span class=\"flip\">"].map { html.components(separatedBy: $0).count - 1 }
        }
        let expected = try marks(single.outputDirectory)
        #expect(expected[1] == 6 && expected.allSatisfy { $0 > 0 }, "the 6 odd cases flip on b: \(expected)")
        #expect(try marks(merged.outputDirectory) == expected)
        #expect(try RunDirectory(merged.outputDirectory).readMetadata().baseline == baseline.path)
    }

    /// A result of case `caseID`, turn `turn` of 2, at plan index `plan` (none when nil).
    private func result(_ caseID: String, turn: Int, plan: Int?) -> RequestResult {
        var result = RequestResult(key: "s/\(caseID)/default/p/none/1", suite: "s", caseID: caseID, turn: turn, turns: 2,
                                   variant: "default", backend: "p", model: "m", reasoning: .none, repeatIndex: 1, tags: [],
                                   status: .pass, instructions: nil, prompt: "q", usage: Usage())
        result.planIndex = plan
        return result
    }

    @Test("the merged order is plan order, then turn, across parts; results without a plan index last, by key, then turn")
    func mergedOrder() {
        let parts = [
            [result("c", turn: 2, plan: 2), result("x", turn: 2, plan: nil), result("a", turn: 1, plan: 0), result("c", turn: 1, plan: 2)],
            [result("b", turn: 2, plan: 1), result("w", turn: 1, plan: nil), result("b", turn: 1, plan: 1), result("x", turn: 1, plan: nil)],
        ]
        let tables = parts.map { ResultTable($0, rowsPerBlock: 1) }
        let merged = RunMerge.planOrder(tables).map { parts[Int($0.part)][Int($0.row)] }
        #expect(merged.map { "\($0.caseID)\($0.turn)" } == ["a1", "b1", "b2", "c1", "c2", "w1", "x1", "x2"])
    }

    @Test("results.jsonl written a megabyte at a time reads back as given, replaces the old file whole, and leaves nothing behind")
    func streamedResultsFile() throws {
        let work = PackagePaths.temporaryDirectory("merge-stream")
        defer { try? FileManager.default.removeItem(at: work) }
        let directory = RunDirectory(work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try directory.writeResults([result("old", turn: 1, plan: 0)])
        // Enough results for three megabyte writes and a last one (about 3 MB).
        let results = (0..<1_200).map { index in
            var one = result("case-\(index)", turn: 1, plan: index)
            one.output = String(repeating: "answer \(index) ", count: 200)
            return one
        }
        let table = try directory.writeResults(streaming: results)
        #expect(Array(table) == results.map { ResultStore.encoded($0).result })
        #expect(try directory.readResults() == Array(table))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path) == [RunDirectory.FileName.results])
        // A directory that is gone: the write fails naming results.jsonl, and nothing is left.
        let gone = RunDirectory(work.appendingPathComponent("gone"))
        #expect(throws: ReportWriteFailure.self) { _ = try gone.writeResults(streaming: results) }
    }

}
