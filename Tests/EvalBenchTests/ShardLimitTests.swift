import Foundation
import Testing
@testable import EvalBench

/// The bounds of a split: N at most `RunLimits.maxShards` wherever it is given, and a shard
/// record in run.json read only with figures a run writes, each refused with its JSON path.
@Suite("Shard limits: N bounded where it is given, run.json's shard record range-checked", .serialized)
struct ShardLimitTests {
    /// A run of 12 cases of suite `geo` on a backend that answers at once, as shard `shard`, into `out`.
    private func run(_ shard: Shard, into out: URL) async throws {
        var request = RunRequest(suitePaths: [], outputDirectory: out.path, gate: Gate(minPassRate: 0), environment: [:])
        request.sources = [.suite(Suite(name: "geo", cases: (0..<12).map { EvalCase(id: "case-\($0)", turns: [Turn(prompt: "q\($0)")]) }))]
        request.configValue = Config(file: nil, backends: [])
        request.providedBackends = [FixedAnswerBackend(name: "a")]
        request.shard = .part(shard, shardsGiven: nil)
        _ = try await EvalRun.execute(try EvalRun.load(request), request, transport: DefaultStreamTransport())
    }

    /// Sets `field` of the shard record in `directory`'s run.json to `value`, as an edit would.
    private func edit(_ directory: URL, _ field: String, _ value: Any) throws {
        let file = directory.appendingPathComponent(RunDirectory.FileName.metadata)
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var shard = try #require(json["shard"] as? [String: Any])
        shard[field] = value
        json["shard"] = shard
        try JSONSerialization.data(withJSONObject: json).write(to: file)
    }

    @Test("N is at most 10,000 in --shard K/N, --shard auto's --shards N and a shard made in code; 10,000 itself is taken")
    func countBounded() throws {
        #expect(RunLimits.maxShards == 10_000)
        #expect(Shard("10000/10000") == Shard(index: 10_000, count: 10_000))
        for text in ["1/10001", "1/1000000000", "1/9223372036854775807"] {
            #expect(Shard(text) == nil, "\(text)")
            #expect(ShardRequest(text, count: nil) == nil, "\(text)")
        }
        let tooMany: [(ShardRequest, [String: String])] = [
            (.part(Shard(index: 1, count: 1_000_000_000), shardsGiven: nil), [:]),
            (.part(Shard(index: 0, count: 3), shardsGiven: nil), [:]),
            (.fromEnvironment(count: 10_001), ["JOB_COMPLETION_INDEX": "0"]),
        ]
        for (request, environment) in tooMany {
            #expect(throws: Diagnostic.self, "\(request)") { try request.resolve(environment: environment) }
        }
        #expect(try ShardRequest.fromEnvironment(count: 10_000).resolve(environment: ["JOB_COMPLETION_INDEX": "9999"])
                == Shard(index: 10_000, count: 10_000))
    }

    @Test("run --shard 1/1000000000 and --shards 20000 exit 2 saying the bound, before anything is read")
    func commandLineRefusesTooManyShards() async throws {
        let missing = "/nonexistent/suite.json"
        let huge = try await runEvalbench(["plan", missing, "--shard", "1/1000000000"])
        #expect(huge.status == 2 && huge.stderr.contains("--shard must have N, the number of shards, from 1 to 10000, got '1/1000000000'"), "\(huge.stderr)")
        let auto = try await runEvalbench(["run", missing, "--shard", "auto", "--shards", "20000"],
                                          environment: ["JOB_COMPLETION_INDEX": "0"])
        #expect(auto.status == 2 && auto.stderr.contains("--shards must be a number of shards from 1 to 10000, got 20000"), "\(auto.stderr)")
    }

    @Test("a shard record with a count outside 1...10,000, an index outside 1...count or a negative count is refused with its JSON path")
    func recordRangeChecked() async throws {
        let work = PackagePaths.temporaryDirectory("shard-record-range")
        defer { try? FileManager.default.removeItem(at: work) }
        let part = work.appendingPathComponent("part")
        try await run(Shard(index: 1, count: 3), into: part)
        let original = try Data(contentsOf: part.appendingPathComponent(RunDirectory.FileName.metadata))
        let cases: [(field: String, value: Any, path: String)] = [
            ("count", 0, "$.shard.count"), ("count", -2, "$.shard.count"), ("count", 10_001, "$.shard.count"),
            ("index", 0, "$.shard.index"), ("index", 4, "$.shard.index"), ("requests", -1, "$.shard.requests"),
            ("caseRuns", -5, "$.shard.caseRuns"), ("cases", ["geo/case-1", "geo/case-1"], "$.shard.cases[1]"),
        ]
        for (field, value, path) in cases {
            try original.write(to: part.appendingPathComponent(RunDirectory.FileName.metadata))
            try edit(part, field, value)
            do {
                _ = try RunDirectory(part).readMetadata()
                Issue.record("\(field) \(value) was read")
            } catch let diagnostic as Diagnostic {
                #expect(diagnostic.file == part.appendingPathComponent(RunDirectory.FileName.metadata).path)
                #expect(diagnostic.path == path, "\(field) \(value): \(diagnostic)")
                #expect(diagnostic.fix?.contains("restore it") == true)
            }
        }
    }

    @Test("run.json's interruption counts are range-checked when read, as merge sums them over its parts")
    func interruptionRangeChecked() async throws {
        let work = PackagePaths.temporaryDirectory("interruption-range")
        defer { try? FileManager.default.removeItem(at: work) }
        let part = work.appendingPathComponent("part")
        try await run(Shard(index: 1, count: 3), into: part)
        let file = part.appendingPathComponent(RunDirectory.FileName.metadata)
        let original = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let cases: [(unfinished: Int, planned: Int, path: String?)] = [
            (1, 2, nil), (-3, 2, "$.interruption.unfinishedRequests"), (3, 2, "$.interruption.unfinishedRequests"),
            (0, Int.max, "$.interruption.plannedRequests"), (0, -1, "$.interruption.plannedRequests"),
        ]
        for (unfinished, planned, path) in cases {
            var json = original
            json["interruption"] = ["unfinishedRequests": unfinished, "plannedRequests": planned]
            try JSONSerialization.data(withJSONObject: json).write(to: file)
            do {
                let metadata = try RunDirectory(part).readMetadata()
                #expect(path == nil && metadata.interruption?.unfinishedRequests == unfinished, "\(unfinished) of \(planned) was read")
            } catch let diagnostic as Diagnostic {
                #expect(path != nil && diagnostic.path == path, "\(unfinished) of \(planned): \(diagnostic)")
            }
        }
    }

    @Test("a merge of parts whose interruption counts disagree with their shards' keeps unfinished at most planned, so its run.json reads back")
    func mergedInterruptionStaysReadable() throws {
        func part(_ name: String, requests: Int, unfinished: Int?) -> RunMerge.Part {
            var metadata = RunMetadata(toolVersion: "t", arguments: [], suites: [], config: Config(backends: []), gitCommit: nil,
                                       host: .current(), startedAt: Date(), endedAt: nil, backends: [])
            metadata.shard = ShardRecord(index: 1, count: 2, partitionKey: Shard.partitionKey, planSHA256: "", cases: [],
                                         caseRuns: 1, requests: requests)
            metadata.interruption = unfinished.map { RunMetadata.Interruption(unfinishedRequests: $0, plannedRequests: 1_000) }
            return RunMerge.Part(path: name, metadata: metadata, results: ResultTable())
        }
        let merged = try #require(RunMerge.interruption(of: [part("a", requests: 2, unfinished: 900), part("b", requests: 3, unfinished: nil)]))
        #expect(merged.plannedRequests == 5 && merged.unfinishedRequests == 5 && merged.parts == ["a"])
    }

    @Test("merge of parts whose run.json says shard.count 0 or -2 exits 2 naming run.json and $.shard.count, instead of crashing")
    func mergeOfImpossibleCountExits2() async throws {
        let work = PackagePaths.temporaryDirectory("shard-count-zero")
        defer { try? FileManager.default.removeItem(at: work) }
        let parts = (1...3).map { work.appendingPathComponent("part-\($0)") }
        for (index, part) in parts.enumerated() { try await run(Shard(index: index + 1, count: 3), into: part) }
        for count in [0, -2] {
            for part in parts { try edit(part, "count", count) }
            let merged = try await runEvalbench(["merge"] + parts.map(\.path) + ["--out", work.appendingPathComponent("merged").path])
            let runJSON = parts[0].appendingPathComponent(RunDirectory.FileName.metadata).path
            #expect(merged.status == 2, "count \(count): \(merged.status) \(merged.stderr)")
            #expect(merged.stderr.contains(runJSON) && merged.stderr.contains("(at $.shard.count)"), "\(merged.stderr)")
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("merged").path))
        }
    }

    @Test("a part of --shard 1/10000 merged alone with --allow-partial names the missing shards that hold cases, and sums up the rest in one line")
    func manyMissingShardsSaidInOneLine() async throws {
        let work = PackagePaths.temporaryDirectory("shard-many")
        defer { try? FileManager.default.removeItem(at: work) }
        let part = work.appendingPathComponent("part")
        try await run(Shard(index: 1, count: 10_000), into: part)
        var request = MergeRequest(partDirectories: [part.path], outputDirectory: work.appendingPathComponent("merged").path)
        request.allowPartial = true
        request.gate = Gate(minPassRate: 0, allowsEmptyRun: true)
        request.environment = [:]
        let merged = try RunMerge.execute(request)
        let holding = Set((0..<12).map { Shard.of(suite: "geo", caseID: "case-\($0)", count: 10_000) }).subtracting([1]).sorted()
        #expect(merged.missing.dropLast() == holding.map { index in
            let cases = (0..<12).filter { Shard.of(suite: "geo", caseID: "case-\($0)", count: 10_000) == index }.map { "geo/case-\($0)" }
            return "shard \(index)/10000 is missing: no results for \(MergeCheck.names(cases))"
        })
        let rest = 9_999 - holding.count
        #expect(merged.missing.last == "\(rest) more shards are missing, none of them with a case: "
                + (2...10_000).filter { !holding.contains($0) }.prefix(20).map { "\($0)/10000" }.joined(separator: ", ")
                + " and \(rest - 20) more", "\(merged.missing.last ?? "")")
    }
}
