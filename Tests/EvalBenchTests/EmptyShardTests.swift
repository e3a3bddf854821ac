import Foundation
import Testing
@testable import EvalBench

/// A shard that holds no case: it starts no backend, writes a valid empty part that `merge`
/// takes, and exits 0 with a line saying so; `plan --shard` plans only its shard's cases.
@Suite("an empty shard starts nothing and is a valid part; plan --shard plans one shard", .serialized)
struct EmptyShardTests {
    /// Counts `prepare()` calls: a managed server starts there.
    final class PrepareCount: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    struct CountingBackend: Backend {
        let name: String
        let prepared: PrepareCount
        func prepare() async -> Availability {
            prepared.add()
            return .available
        }
        func startConversation() async -> any Conversation { FixedAnswerBackend.Reply(answer: { $0 }) }
    }

    private let suite = Suite(name: "few", cases: (0..<4).map { index in
        EvalCase(id: "case-\(index)", turns: [Turn(prompt: "q\(index)", expect: [Assertion(.contains("q", ignoreCase: false))])])
    })

    /// The number of shards, and the first of them, that leaves `suite` a shard with no case.
    private var emptySplit: (count: Int, empty: Int) {
        for count in 2... {
            let used = Set(suite.cases.map { Shard.of(suite: suite.name, caseID: $0.id, count: count) })
            if let empty = (1...count).first(where: { !used.contains($0) }) { return (count, empty) }
        }
        fatalError("unreachable")
    }

    private func request(_ out: URL, shard: Shard?, prepared: PrepareCount) -> RunRequest {
        var request = RunRequest(suitePaths: [], outputDirectory: out.path, gate: Gate(), environment: [:])
        request.sources = [.suite(suite)]
        request.configValue = Config(file: nil, backends: [])
        request.providedBackends = [CountingBackend(name: "a", prepared: prepared)]
        request.shard = shard.map { ShardRequest.part($0, shardsGiven: nil) }
        return request
    }

    @Test("an empty shard prepares no backend, writes run.json and an empty results.jsonl, exits 0 saying so; merge takes it")
    func emptyShardRunsNothing() async throws {
        let work = PackagePaths.temporaryDirectory("empty-shard")
        defer { try? FileManager.default.removeItem(at: work) }
        let split = emptySplit
        var parts: [URL] = []
        for index in 1...split.count {
            let prepared = PrepareCount()
            let out = work.appendingPathComponent("shard-\(index)")
            let request = request(out, shard: Shard(index: index, count: split.count), prepared: prepared)
            let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: DefaultStreamTransport())
            parts.append(out)
            guard index == split.empty else { continue }
            #expect(prepared.count == 0, "an empty shard starts no backend")
            #expect(outcome.results.isEmpty)
            #expect(outcome.verdict.exitStatus == .success, "\(outcome.verdict.reasons)")
            #expect(outcome.verdict.notes.contains { $0.hasPrefix("shard \(split.empty)/\(split.count) holds no cases") },
                    "\(outcome.verdict.notes)")
            let directory = RunDirectory(out)
            #expect(try directory.readMetadata().shard?.caseRuns == 0)
            #expect(try directory.readResults().isEmpty)
            let checks = try directory.readMetadata().verdict?.checks ?? []
            #expect(checks.contains("a shard that holds no case passes: evalbench merge gates the whole run"), "\(checks)")
            #expect(!checks.contains { $0.contains("--allow-empty") }, "no --allow-empty was given")
        }
        var merge = MergeRequest(partDirectories: parts.map(\.path), outputDirectory: work.appendingPathComponent("merged").path)
        merge.gate = Gate(minPassRate: 0)
        merge.environment = [:]
        let merged = try RunMerge.execute(merge)
        #expect(Set(merged.results.map(\.caseID)) == Set(suite.cases.map(\.id)))
    }

    @Test("evalbench merge of parts in which no case ran fails saying --allow-empty, and passes with it")
    func mergeAllowsEmpty() async throws {
        let work = PackagePaths.temporaryDirectory("empty-merge")
        defer { try? FileManager.default.removeItem(at: work) }
        let split = emptySplit
        let out = work.appendingPathComponent("empty")
        let request = request(out, shard: Shard(index: split.empty, count: split.count), prepared: PrepareCount())
        _ = try await EvalRun.execute(try EvalRun.load(request), request, transport: DefaultStreamTransport())
        let merge = ["merge", out.path, "--allow-partial", "--out"]
        let refused = try await runEvalbench(merge + [work.appendingPathComponent("refused").path])
        #expect(refused.status == 1 && (refused.stdout + refused.stderr).contains("pass --allow-empty if that is expected"), "\(refused.stdout)\(refused.stderr)")
        let allowed = try await runEvalbench(merge + [work.appendingPathComponent("allowed").path, "--allow-empty"])
        #expect(allowed.status == 0, "\(allowed.stdout)\(allowed.stderr)")
    }

    @Test("a run that is not an empty shard and records nothing still fails the gate without --allow-empty")
    func emptyRunElsewhereFails() async throws {
        let work = PackagePaths.temporaryDirectory("empty-run")
        defer { try? FileManager.default.removeItem(at: work) }
        let prepared = PrepareCount()
        let request = request(work, shard: nil, prepared: prepared)
        var loaded = try EvalRun.load(request)
        loaded.plan.caseRuns = []
        let outcome = try await EvalRun.execute(loaded, request, transport: DefaultStreamTransport())
        #expect(outcome.results.isEmpty)
        #expect(outcome.verdict.exitStatus != .success)
        #expect(!outcome.verdict.notes.contains { $0.contains("holds no cases") })
    }

    @Test("plan --shard plans only that shard's case runs")
    func planShard() throws {
        let split = emptySplit
        let busy = (1...split.count).first { index in
            suite.cases.contains { Shard.of(suite: suite.name, caseID: $0.id, count: split.count) == index }
        }!
        let prepared = PrepareCount()
        let whole = try EvalRun.load(request(URL(fileURLWithPath: "/unused"), shard: nil, prepared: prepared))
        let part = try EvalRun.load(request(URL(fileURLWithPath: "/unused"), shard: Shard(index: busy, count: split.count), prepared: prepared))
        let expected = suite.cases.map(\.id).filter { Shard.of(suite: suite.name, caseID: $0, count: split.count) == busy }
        #expect(part.plan.caseRuns.map(\.evalCase.id) == expected)
        #expect(part.plan.caseRuns.count < whole.plan.caseRuns.count)
        #expect(part.shard?.shard == Shard(index: busy, count: split.count))
        #expect(prepared.count == 0)
    }
}
