import Foundation
import Testing
@testable import EvalBench

@Suite("run --shard K/N: a stable partition of a run's cases")
struct ShardTests {
    private func suite(_ name: String = "geo", cases count: Int, turns: (Int) -> Int = { _ in 1 }) -> Suite {
        Suite(name: name, cases: (0..<count).map { index in
            EvalCase(id: "case-\(index)", turns: (0..<turns(index)).map { Turn(prompt: "q\(index)-\($0)") })
        })
    }

    /// A run of 12 single-turn cases of suite `geo` on a backend that answers at once, as `shard`.
    private func shardRequest(_ shard: ShardRequest, environment: [String: String] = [:]) -> RunRequest {
        var request = RunRequest(suitePaths: [], environment: environment)
        request.sources = [.suite(suite(cases: 12))]
        request.configValue = Config(file: nil, backends: [])
        request.providedBackends = [FixedAnswerBackend(name: "fake")]
        request.shard = shard
        return request
    }

    @Test("K/N parses with 1 ≤ K ≤ N; 0/3, 4/3, 3, 1/0 and a/b do not")
    func parsing() {
        #expect(Shard("2/3") == Shard(index: 2, count: 3))
        #expect(Shard("1/1") == Shard(index: 1, count: 1))
        for bad in ["0/3", "4/3", "3", "1/0", "a/b", "1/2/3", ""] { #expect(Shard(bad) == nil, "\(bad)") }
        #expect(ShardRequest("auto", count: 4) == .fromEnvironment(count: 4))
    }

    @Test("--shard auto takes K from JOB_COMPLETION_INDEX (from 0) plus 1 and N from --shards; without either it says what to set")
    func auto() throws {
        let auto = ShardRequest.fromEnvironment(count: 4)
        #expect(try auto.resolve(environment: ["JOB_COMPLETION_INDEX": "0"]) == Shard(index: 1, count: 4))
        #expect(try auto.resolve(environment: ["JOB_COMPLETION_INDEX": "3"]) == Shard(index: 4, count: 4))
        for environment in [[:], ["JOB_COMPLETION_INDEX": "4"], ["JOB_COMPLETION_INDEX": "x"]] {
            #expect(throws: Diagnostic.self) { try auto.resolve(environment: environment) }
        }
        do {
            _ = try ShardRequest.fromEnvironment(count: nil).resolve(environment: ["JOB_COMPLETION_INDEX": "0"])
            Issue.record("auto without --shards resolved")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.fix?.contains("--shards N") == true)
        }
    }

    @Test("--shards that disagrees with --shard K/N is refused, not ignored; the same N is fine")
    func shardsMustAgree() throws {
        let conflicting = try #require(ShardRequest("2/3", count: 4))
        #expect(throws: Diagnostic.self) { try conflicting.resolve(environment: [:]) }
        #expect(try #require(ShardRequest("2/3", count: 3)).resolve(environment: [:]) == Shard(index: 2, count: 3))
        #expect(try #require(ShardRequest("2/3", count: nil)).resolve(environment: [:]) == Shard(index: 2, count: 3))
    }

    @Test("a case's shard is SHA-256 of suite/case id, the first 8 bytes big-endian, mod N, plus 1 (values fixed across versions)")
    func pinnedAssignment() {
        // Computed independently: Python's hashlib.sha256(b"quickstart/capital-france").
        #expect(Shard.of(suite: "quickstart", caseID: "capital-france", count: 3) == 2)
        #expect(Shard.of(suite: "quickstart", caseID: "capital-china", count: 3) == 3)
        #expect(Shard.of(suite: "quickstart", caseID: "capital-spain", count: 3) == 1)
        #expect(Shard.of(suite: "geo", caseID: "a", count: 2) == 2)
        #expect(Shard.of(suite: "suite", caseID: "case-7", count: 8) == 4)
    }

    @Test("the shards partition the plan by case: every repeat, level, variant and backend of a case in one shard, plan indexes kept")
    func partitionByCase() {
        var geo = suite(cases: 30)
        geo.variants = [PromptVariant(name: "plain"), PromptVariant(name: "terse", promptTemplate: "Briefly: {{prompt}}")]
        let plan = Planner.plan([geo], PlanSelection(backends: ["a", "b"], reasoning: [.none, .light], repeatCount: 2))
        let parts = (1...3).map { plan.sharded(Shard(index: $0, count: 3)) }
        let keys = parts.flatMap { $0.plan.caseRuns.map(\.key) }
        #expect(keys.sorted() == plan.caseRuns.map(\.key).sorted(), "together the shards are the plan")
        #expect(Set(keys).count == keys.count, "no case run in two shards")
        for part in parts {
            #expect(part.plan.caseRuns.allSatisfy { plan.caseRuns[$0.index].key == $0.key }, "indexes are the unsharded plan's")
            for caseID in Set(part.plan.caseRuns.map(\.evalCase.id)) {
                #expect(part.plan.caseRuns.filter { $0.evalCase.id == caseID }.count == 16, "2 variants × 2 backends × 2 levels × 2 repeats")
            }
            #expect(part.record.cases == plan.caseIDs && part.record.planSHA256 == parts[0].record.planSHA256)
            #expect(part.record.requests == part.plan.requestCount && part.record.partitionKey == Shard.partitionKey)
        }
    }

    @Test("run.json names each suite's case runs once: its cases, each with them, are the whole plan's keys in plan order")
    func recordNamesThePlan() throws {
        var geo = suite(cases: 5, turns: { $0 % 2 + 1 })
        geo.variants = [PromptVariant(name: "plain"), PromptVariant(name: "terse", promptTemplate: "Briefly: {{prompt}}")]
        let other = suite("other", cases: 3)
        let plan = Planner.plan([geo, other], PlanSelection(backends: ["a", "b"], reasoning: [.none, .light], repeatCount: 2))
        let record = plan.sharded(Shard(index: 2, count: 3)).record
        let runs = try #require(record.caseRunsOfEachCase)
        #expect(runs["geo"]?.count == 16 && runs["other"]?.count == 8 && runs.count == 2)
        #expect(runs["geo"]?.prefix(3) == ["plain/a/none/1", "plain/a/none/2", "plain/a/light/1"])
        let keys = record.cases.flatMap { name in runs[String(ShardRecord.suite(ofCase: name))]!.map { "\(name)/\($0)" } }
        #expect(keys == plan.caseRuns.map(\.key))
        // Case runs given one by one, the cases of a suite with different ones: not a matrix, so none is named.
        let given = RunPlan(caseRuns: [plan.caseRuns[0], plan.caseRuns[17]])
        #expect(given.sharded(Shard(index: 1, count: 2)).record.caseRunsOfEachCase == nil)
    }

    @Test("a case keeps its shard when cases are added or removed; only N moves it")
    func stableUnderChange() {
        let before = Planner.plan([suite(cases: 100)], PlanSelection(backends: ["a"]))
        let after = Planner.plan([suite(cases: 160)], PlanSelection(backends: ["a"]))
        for count in [2, 5] {
            for index in 1...count {
                let shard = Shard(index: index, count: count)
                let old = Set(before.sharded(shard).plan.caseRuns.map(\.evalCase.id))
                let new = Set(after.sharded(shard).plan.caseRuns.map(\.evalCase.id))
                #expect(old.isSubset(of: new), "shard \(shard) keeps its cases")
                #expect(new.subtracting(old).allSatisfy { Int($0.dropFirst("case-".count))! >= 100 }, "and gains only new ones")
            }
        }
    }

    @Test("balanced by request count by the hash alone: 10,000 cases of 1–5 turns, within 3% of the mean in 3 shards, 5% in 8")
    func balance() {
        let plan = Planner.plan([suite(cases: 10_000, turns: { $0 * 7 % 5 + 1 })], PlanSelection(backends: ["a"]))
        for (count, tolerance) in [(3, 0.03), (8, 0.05)] {
            let requests = (1...count).map { plan.sharded(Shard(index: $0, count: count)).record.requests }
            let mean = Double(plan.requestCount) / Double(count)
            #expect(requests.reduce(0, +) == plan.requestCount)
            #expect(requests.allSatisfy { abs(Double($0) - mean) / mean < tolerance }, "\(requests) around \(mean)")
        }
    }

    @Test("run --shard records the shard, partition key, plan and input digests in run.json, and runs only its cases")
    func loadRecordsShard() throws {
        let request = shardRequest(.fromEnvironment(count: 3), environment: ["JOB_COMPLETION_INDEX": "1"])
        let loaded = try EvalRun.load(request)
        let record = try #require(loaded.shard)
        #expect(record.shard == Shard(index: 2, count: 3) && record.cases.count == 12)
        #expect(!loaded.plan.caseRuns.isEmpty)
        #expect(loaded.plan.caseRuns.allSatisfy { Shard.of(suite: "geo", caseID: $0.evalCase.id, count: 3) == 2 })
        let metadata = EvalRun.startMetadata(loaded, request, started: Date(), gitCommit: nil)
        #expect(metadata.shard == record)
        #expect(metadata.suitesSHA256 == InputDigest.suites(metadata.suites) && metadata.suitesSHA256?.count == 64)
        #expect(metadata.configSHA256 == InputDigest.config(loaded.config))
    }

    @Test("--max-requests limits a shard's own requests, not the whole matrix's")
    func maxRequestsPerShard() throws {
        var request = shardRequest(.part(Shard(index: 1, count: 3), shardsGiven: nil))
        let inShard = (0..<12).filter { Shard.of(suite: "geo", caseID: "case-\($0)", count: 3) == 1 }.count
        #expect(inShard > 0 && inShard < 12)
        request.maxRequests = inShard
        let loaded = try EvalRun.load(request)
        #expect(loaded.plan.requestCount == inShard)
        request.maxRequests = inShard - 1
        do {
            _ = try EvalRun.load(request)
            Issue.record("a shard over the limit loaded")
        } catch let error as LoadError {
            #expect(error.diagnostics.first?.message.hasPrefix("shard 1/3 of the matrix would send \(inShard) requests") == true,
                    "\(error.diagnostics)")
        }
    }

    @Test("runs started in the same second without --out get directories of their own, named by their shard")
    func defaultDirectories() throws {
        let reports = PackagePaths.temporaryDirectory("default-out")
        defer { try? FileManager.default.removeItem(at: reports) }
        let request = shardRequest(.part(Shard(index: 2, count: 3), shardsGiven: nil))
        let loaded = try EvalRun.load(request)
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        let names = try (0..<3).map { _ in try EvalRun.outputDirectory(for: loaded, request, started: started, under: reports).lastPathComponent }
        #expect(names == ["geo-20270115-080000-shard-2-of-3", "geo-20270115-080000-shard-2-of-3-2", "geo-20270115-080000-shard-2-of-3-3"])
    }

    @Test("a shard's summary.md and report.html say it is one shard of a run")
    func shardReportsSayWhatTheyCover() async throws {
        let out = PackagePaths.temporaryDirectory("shard-reports")
        defer { try? FileManager.default.removeItem(at: out) }
        var request = shardRequest(.part(Shard(index: 2, count: 3), shardsGiven: nil))
        request.outputDirectory = out.path
        _ = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.hasPrefix("# evalbench: geo (shard 2/3)\n\nThis is shard 2/3 of a sharded run"), "\(summary.prefix(200))")
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("Shard 2/3 of a sharded run"))
    }

    @Test("the config digest is the config's, not the path it was read from")
    func configDigestIgnoresPath() {
        let backend = BackendConfig(name: "local", model: "m", options: OpenAIKind(baseURL: "http://127.0.0.1:8080/v1"))
        let digests = ["evalbench.json", "./evalbench.json", "/home/runner/work/app/evalbench.json", nil].map {
            InputDigest.config(Config(file: $0, backends: [backend]))
        }
        #expect(Set(digests).count == 1)
        #expect(InputDigest.config(Config(file: nil, backends: [BackendConfig(name: "local", model: "other", options: OpenAIKind(baseURL: "http://127.0.0.1:8080/v1"))])) != digests[0])
    }
}

/// A test double: a backend that answers every prompt with the prompt itself, at once.
struct FixedAnswerBackend: Backend {
    let name: String
    var answer: @Sendable (String) -> String = { $0 }

    func startConversation() async -> any Conversation { Reply(answer: answer) }

    struct Reply: Conversation {
        let answer: @Sendable (String) -> String
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            let watch = Stopwatch()
            let text = answer(request.messages.last?.content ?? "")
            let end = watch.ms()
            return .success(ModelResponse(text: text, timing: RequestTiming(startedAt: watch.startedAt, firstTokenMs: end,
                                                                            firstAnswerTokenMs: end, endMs: end),
                                          usage: Usage()))
        }
    }
}
