import Foundation

/// One part of a run split across machines (`run --shard K/N`, as Playwright's `--shard`):
/// the cases whose stable hash falls in part `index` of `count`.
///
/// A case's shard depends on its suite, its id and `count` alone, never on the other cases:
/// adding or removing a case moves no other case, and every repeat, level, variant and
/// backend of a case runs in the same shard, so its statistics and flips stay whole. Balance
/// by request count therefore comes from the hash, not from packing (packing would move cases
/// whenever one is added): each case lands in a shard as if uniformly at random, so a shard's
/// requests are off the mean by about √((N − 1) / cases) of it. Measured: 10,000 cases of 1–5
/// turns are at most 2.4% off in 3 shards and 3.6% in 8 (`ShardTests`), 1,000 cases up to 19%
/// in 8; the 16 cases of evals/quickstart.json split 8/6/2 in 3. Many cases balance well; a
/// handful does not, and only more cases help.
package struct Shard: Sendable, Codable, Equatable, CustomStringConvertible {
    /// From 1 to `count`.
    package var index: Int
    package var count: Int

    /// How a case is assigned, as run.json records it.
    package static let partitionKey =
        "sha256(suite + \"/\" + case id): the first 8 bytes as a big-endian integer, mod N, plus 1"

    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `K/N`.
    package var description: String { "\(index)/\(count)" }

    /// The shard, from 1 to `count`, that runs case `caseID` of `suite`.
    package static func of(suite: String, caseID: String, count: Int) -> Int {
        of(caseNamed: "\(suite)/\(caseID)", count: count)
    }

    /// The shard, from 1 to `count`, of the case named `suite/case id` (as `ShardRecord.cases` names it).
    package static func of(caseNamed name: String, count: Int) -> Int {
        let digest = SHA256.digest(Data(name.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(max(1, count))) + 1
    }

    /// Whether this shard runs case `caseID` of `suite`.
    package func contains(suite: String, caseID: String) -> Bool {
        Shard.of(suite: suite, caseID: caseID, count: count) == index
    }

    /// `K/N` with 1 ≤ K ≤ N ≤ `RunLimits.maxShards`, else nil.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), Self.countProblem(count) == nil,
              (1...count).contains(index) else { return nil }
        self.init(index: index, count: count)
    }

    /// Why `text` is neither `K/N` nor `auto`, said for `--shard`; nil when it is one.
    package static func problem(_ text: String) -> String? {
        guard text != "auto", Shard(text) == nil else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, Int(parts[0]) != nil, let count = Int(parts[1]), countProblem(count) != nil {
            return "must have N, the number of shards, from 1 to \(RunLimits.maxShards), got '\(text)'"
        }
        return "must be K/N with 1 ≤ K ≤ N (such as 2/4), or auto, got '\(text)'"
    }

    /// Why `count` cannot be a number of shards (N), or nil when it can.
    package static func countProblem(_ count: Int) -> String? {
        (1...RunLimits.maxShards).contains(count) ? nil
            : "must be a number of shards from 1 to \(RunLimits.maxShards), got \(count)"
    }
}

/// What `--shard` asked for: a part named outright, or the one a cluster's job index names.
package enum ShardRequest: Sendable, Equatable {
    /// `--shard K/N`, with `--shards` when it was given too (it must then be N).
    case part(Shard, shardsGiven: Int?)
    /// `--shard auto`: K from `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job's pod index,
    /// counting from 0), N from `--shards N`.
    case fromEnvironment(count: Int?)

    /// `K/N`, or `auto` with `--shards`; nil when the text is neither.
    package init?(_ text: String, count: Int?) {
        if text == "auto" {
            self = .fromEnvironment(count: count)
        } else if let shard = Shard(text) {
            self = .part(shard, shardsGiven: count)
        } else {
            return nil
        }
    }

    /// The shard this process runs; a `Diagnostic` saying what to set when it cannot tell.
    package func resolve(environment: [String: String]) throws -> Shard {
        switch self {
        case let .part(shard, shardsGiven):
            // A shard made in code was not read by `Shard(_:)`: its bounds are checked here.
            if let problem = Shard.countProblem(shard.count) {
                throw Diagnostic(file: "--shard", message: "--shard \(shard): N \(problem)", fix: Self.fewerShards)
            }
            guard (1...shard.count).contains(shard.index) else {
                throw Diagnostic(file: "--shard", message: "--shard \(shard): K must be 1 to N",
                                 fix: "number the shards 1 to N (on GitHub Actions: --shard ${{ matrix.shard }}/${{ strategy.job-total }})")
            }
            if let shardsGiven, shardsGiven != shard.count {
                throw Diagnostic(file: "--shards", message: "--shards \(shardsGiven) disagrees with --shard \(shard.index)/\(shard.count)",
                                 fix: "give the number of shards once: --shard K/N alone, or --shard auto --shards N")
            }
            return shard
        case let .fromEnvironment(count):
            guard let count, count >= 1 else {
                throw Diagnostic(file: "--shard", message: "--shard auto needs the number of shards",
                                 fix: "pass --shards N (the Indexed Job's completions)")
            }
            if let problem = Shard.countProblem(count) {
                throw Diagnostic(file: "--shards", message: "--shards \(problem)", fix: Self.fewerShards)
            }
            guard let text = environment["JOB_COMPLETION_INDEX"], let zeroBased = Int(text), (0..<count).contains(zeroBased) else {
                let found = environment["JOB_COMPLETION_INDEX"].map { "is '\($0)'" } ?? "is not set"
                throw Diagnostic(file: "--shard", message: "--shard auto reads JOB_COMPLETION_INDEX, which \(found); it must be 0...\(count - 1)",
                                 fix: "run as a Kubernetes Indexed Job with completions: \(count), or pass --shard K/N (on GitHub Actions: --shard ${{ matrix.shard }}/${{ strategy.job-total }})")
            }
            return Shard(index: zeroBased + 1, count: count)
        }
    }
}

extension ShardRequest {
    /// How to stay within `RunLimits.maxShards`.
    static var fewerShards: String {
        "split the run into at most \(RunLimits.maxShards) shards (each shard is a machine; more would mostly hold no case)"
    }
}

/// What a shard's run.json records, so that `evalbench merge` can check its parts belong
/// together and cover the whole run.
package struct ShardRecord: Sendable, Codable, Equatable {
    package var index: Int
    package var count: Int
    /// `Shard.partitionKey`.
    package var partitionKey: String
    /// The SHA-256 of the unsharded plan's case-run keys, one a line in plan order: equal
    /// parts planned the same matrix (suites, cases, variants, backends, levels, repeats).
    package var planSHA256: String
    /// Every case of the unsharded plan, `suite/case`, in plan order.
    package var cases: [String]
    /// The case runs and requests this shard planned.
    package var caseRuns: Int
    package var requests: Int
    /// By suite, the case runs each of its cases has in the unsharded plan, in plan order, each as
    /// the rest of its key (`variant/backend/reasoning/repeat`): the plan gives every case of a
    /// suite the same ones. With `cases` it names every planned case run, `suite/case/` and each,
    /// and its place in the plan, which is what `merge` checks a part's results against. Nil in
    /// run.json files from before it was recorded (merge then takes them from the results).
    package var caseRunsOfEachCase: [String: [String]]? = nil

    /// The shard as `K/N`.
    package var shard: Shard { Shard(index: index, count: count) }

    /// The suite of `suite/case`, one of `cases`: what precedes the first `/` (neither a suite's
    /// name nor a case id may hold one).
    package static func suite(ofCase name: String) -> Substring {
        name.prefix { $0 != "/" }
    }
}

extension ShardRecord {
    private enum CodingKeys: String, CodingKey {
        case index, count, partitionKey, planSHA256, cases, caseRuns, requests, caseRunsOfEachCase
    }

    /// A key of the coding path that names a suite or a position, for errors' JSON paths.
    private struct PathKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) {
            stringValue = String(intValue)
            self.intValue = intValue
        }
    }

    /// Reads the record as run.json holds it, refusing figures no run writes (a count of 0
    /// shards crashed `merge`), with the JSON path of the value and what it must be.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode(Int.self, forKey: .count)
        if let problem = Shard.countProblem(count) {
            throw DecodingError.dataCorruptedError(forKey: .count, in: container, debugDescription: problem)
        }
        index = try container.decode(Int.self, forKey: .index)
        guard (1...count).contains(index) else {
            throw DecodingError.dataCorruptedError(forKey: .index, in: container,
                                                   debugDescription: "the shard's index K must be 1 to N (\(count)), got \(index)")
        }
        partitionKey = try container.decode(String.self, forKey: .partitionKey)
        planSHA256 = try container.decode(String.self, forKey: .planSHA256)
        caseRuns = try container.decode(Int.self, forKey: .caseRuns)
        requests = try container.decode(Int.self, forKey: .requests)
        for (key, value) in [(CodingKeys.caseRuns, caseRuns), (.requests, requests)] where !(0...Self.largestCount).contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                   debugDescription: "must be a count from 0 to \(Self.largestCount), got \(value)")
        }
        cases = try container.decode([String].self, forKey: .cases)
        caseRunsOfEachCase = try container.decodeIfPresent([String: [String]].self, forKey: .caseRunsOfEachCase)
        try checkNames(container)
    }

    /// The most case runs or requests a shard may record: far beyond any run (a merge reads each
    /// result), and small enough that no sum of them over `RunLimits.maxShards` parts overflows.
    static let largestCount = 1 << 40

    /// Each case once, each suite's case runs once each, and every case's suite among them.
    private func checkNames(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        func corrupted(_ path: [any CodingKey], _ description: String) -> DecodingError {
            .dataCorrupted(DecodingError.Context(codingPath: container.codingPath + path, debugDescription: description))
        }
        var seen: Set<String> = []
        for (position, name) in cases.enumerated() {
            guard seen.insert(name).inserted else {
                throw corrupted([CodingKeys.cases, PathKey(intValue: position)], "the case '\(name)' is listed twice")
            }
            if let runs = caseRunsOfEachCase, runs[String(Self.suite(ofCase: name))] == nil {
                throw corrupted([CodingKeys.cases, PathKey(intValue: position)],
                                "the case '\(name)' has a suite that caseRunsOfEachCase does not list")
            }
        }
        for (suite, runs) in caseRunsOfEachCase ?? [:] {
            var seenRuns: Set<String> = []
            if let repeated = runs.firstIndex(where: { !seenRuns.insert($0).inserted }) {
                throw corrupted([CodingKeys.caseRunsOfEachCase, PathKey(stringValue: suite), PathKey(intValue: repeated)],
                                "the case run '\(runs[repeated])' is listed twice")
            }
        }
    }
}

extension RunPlan {
    /// The case runs of `shard`, keeping their indexes in the unsharded plan (so that merged
    /// reports list case runs as one run does), and what run.json records of it.
    package func sharded(_ shard: Shard) -> (plan: RunPlan, record: ShardRecord) {
        let part = RunPlan(caseRuns: caseRuns.filtered { shard.contains(suite: $0.suite, caseID: $0.evalCase.id) })
        let keys = caseRuns.map(\.key)
        let cases = caseIDs
        let record = ShardRecord(index: shard.index, count: shard.count, partitionKey: Shard.partitionKey,
                                 planSHA256: SHA256.hex(Data(keys.map { $0 + "\n" }.joined().utf8)),
                                 cases: cases, caseRuns: part.caseRuns.count, requests: part.requestCount,
                                 caseRunsOfEachCase: Self.caseRunsOfEachCase(keys: keys, cases: cases))
        return (part, record)
    }

    /// Each suite's case runs, `variant/backend/reasoning/repeat`, as its first case has them; nil
    /// unless every case has them and `cases` with them gives `keys` in order (a plan made by
    /// `Planner.plan` does; one given case run by case run may not).
    static func caseRunsOfEachCase(keys: [String], cases: [String]) -> [String: [String]]? {
        var runs: [String: [String]] = [:]
        var position = 0
        for name in cases {
            let suite = String(ShardRecord.suite(ofCase: name)), prefix = name + "/"
            var rest: [String] = []
            while position < keys.count, keys[position].hasPrefix(prefix) {
                rest.append(String(keys[position].dropFirst(prefix.count)))
                position += 1
            }
            if let first = runs[suite] {
                guard first == rest else { return nil }
            } else {
                runs[suite] = rest
            }
        }
        return position == keys.count ? runs : nil
    }

    /// `suite/case` of every case in the plan, once each, in plan order.
    package var caseIDs: [String] {
        var seen: Set<String> = []
        return caseRuns.map { "\($0.suite)/\($0.evalCase.id)" }.filter { seen.insert($0).inserted }
    }
}

/// The digests run.json records of a run's inputs, which `merge` compares across parts.
package enum InputDigest {
    /// The SHA-256 of each suite's name and digest, one a line.
    package static func suites(_ files: [RunMetadata.SuiteFile]) -> String {
        SHA256.hex(Data(files.map { "\($0.suite) \($0.sha256)\n" }.joined().utf8))
    }

    /// The SHA-256 of the config as run.json records it (JSON, keys sorted), less the path it
    /// was read from: `--config ./evalbench.json` and the default `evalbench.json`, or one
    /// runner's checkout and another's, are the same config.
    package static func config(_ config: Config) -> String {
        var content = config
        content.file = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(content)).map(SHA256.hex) ?? ""
    }
}
