import Foundation

/// Whether the shards given to `evalbench merge` make one whole run: the same split, suites,
/// config and matrix (else `mismatches`, always refused), no result but of a planned case run
/// of its own shard's cases (a mismatch too), and every planned case run present with all its
/// turns (else `gaps`, which `--allow-partial` lets through, said).
package struct MergeCheck: Sendable {
    /// What is missing, with the part or shard it belongs to and how to complete it.
    package struct Gap: Sendable, Equatable {
        package var path: String
        package var message: String
        package var fix: String
    }

    package private(set) var mismatches: [Diagnostic] = []
    package private(set) var gaps: [Gap] = []
    /// For each part, in the order given, the rows whose recorded plan index is not their case
    /// run's place in the plan, with that place: the merge orders and records them by it.
    package private(set) var planIndexes: [[Int: Int]] = []

    /// The most names a message lists before saying how many more there are.
    static let namesShown = 20

    package init(_ parts: [RunMerge.Part]) {
        guard !parts.isEmpty else {
            mismatches = [Diagnostic(file: "merge", message: "no shard directories given",
                                     fix: "pass the --out directory of each `evalbench run --shard K/N`")]
            return
        }
        checkShards(parts)
        if mismatches.isEmpty { checkCoverage(parts) }
    }

    /// Each part is a shard of the same split of the same suites, config and matrix, once.
    private mutating func checkShards(_ parts: [RunMerge.Part]) {
        var records: [(part: RunMerge.Part, record: ShardRecord)] = []
        for part in parts {
            guard let record = part.metadata.shard else {
                mismatches.append(Diagnostic(file: part.path, message: "not a shard: its run.json records no --shard",
                                             fix: "merge the --out directories of `evalbench run --shard K/N`"))
                continue
            }
            records.append((part, record))
        }
        guard let (first, reference) = records.first else { return }
        for (part, record) in records.dropFirst() {
            if record.count != reference.count {
                mismatch(part, "is shard \(record.shard) but \(first.path) is shard \(reference.shard): different splits",
                         fix: "merge the shards of one split, all run with the same N")
            }
            checkInputs(part, against: first)
            if record.planSHA256 != reference.planSHA256 {
                mismatch(part, "planned a different matrix from \(first.path) (cases, variants, backends, levels or repeats differ)",
                         fix: "run every shard with the same suites, --backend, --reasoning, --repeat, --case, --tag and --variant")
            } else if record.cases != reference.cases || record.caseRunsOfEachCase != reference.caseRunsOfEachCase {
                // The same digest of the plan's keys, but another list of them: run.json was edited.
                mismatches.append(Diagnostic(file: RunDirectory(path: part.path).metadata.path, path: "$.shard",
                                             message: "names other cases or case runs than \(first.path) under the same planSHA256",
                                             fix: "run.json is written by `evalbench run`: restore it from the run's copy, or run the shard again"))
            }
        }
        let partsOfShard = Dictionary(grouping: records, by: \.record.index)
        for index in partsOfShard.keys.sorted() {
            let same = partsOfShard[index, default: []].map(\.part.path)
            if same.count > 1 {
                mismatches.append(Diagnostic(file: same[0], message: "shard \(index)/\(reference.count) is given \(same.count) times: \(same.joined(separator: ", ")); they overlap",
                                             fix: "pass each shard's directory once"))
            }
        }
    }

    /// The part ran the same suites (by digest) and the same config as `first`.
    private mutating func checkInputs(_ part: RunMerge.Part, against first: RunMerge.Part) {
        let theirs = first.metadata.suites.reduce(into: [:]) { $0[$1.suite] = $1.sha256 }
        let ours = part.metadata.suites.reduce(into: [:]) { $0[$1.suite] = $1.sha256 }
        for name in Set(theirs.keys).union(ours.keys).sorted() where theirs[name] != ours[name] {
            mismatch(part, "ran suite '\(name)' with sha256 \(ours[name] ?? "none (not run)"), but \(first.path) with \(theirs[name] ?? "none (not run)")",
                     fix: "run every shard from the same suite files")
        }
        // Another version may plan, grade or record differently: its figures are not the same work's.
        if part.metadata.toolVersion != first.metadata.toolVersion {
            mismatch(part, "was run by evalbench \(part.metadata.toolVersion), but \(first.path) by \(first.metadata.toolVersion)",
                     fix: "run every shard with the same evalbench (pin its version in the CI matrix)")
        }
        let configs = [first, part].map { $0.metadata.configSHA256 ?? InputDigest.config($0.metadata.config) }
        if configs[0] != configs[1] {
            mismatch(part, "ran a config with sha256 \(configs[1]), but \(first.path) one with \(configs[0])",
                     fix: "run every shard with the same config file")
        }
    }

    /// Every result of each part is of a planned case run of its own shard's cases, and every
    /// planned case run of every shard has all its turns; the missing ones are named.
    private mutating func checkCoverage(_ parts: [RunMerge.Part]) {
        guard let reference = parts.first?.metadata.shard else { return }
        let plan: MergePlan
        do {
            plan = try MergePlan(reference, file: RunDirectory(path: parts[0].path).metadata.path, parts: parts)
        } catch {
            mismatches.append(error)
            return
        }
        // One part's counts at a time: each is a few bytes a case run it holds, dropped once its shortfall is known.
        var incomplete: [Int: Gap] = [:]
        for part in parts {
            guard let record = part.metadata.shard else { continue }
            let coverage = plan.coverage(of: part.results, shard: record.index)
            checkStrays(coverage, of: part, record: record)
            checkCounts(coverage, of: part, record: record, plan: plan)
            planIndexes.append(coverage.planIndexes)
            let shortfall = plan.shortfall(coverage, shard: record.index, limit: Self.namesShown)
            guard shortfall.unfinished > 0 || coverage.recorded < record.requests else { continue }
            incomplete[record.index] = Gap(
                path: part.path,
                message: "shard \(record.shard) (\(part.path)) is incomplete: \(coverage.recorded) of \(record.requests) requests recorded"
                    + Self.unfinished(shortfall)
                    + (shortfall.missingCases == 0 ? "" : "; no results for " + Self.names(shortfall.missingNamed, of: shortfall.missingCases)),
                fix: "finish it with `evalbench run ... --shard \(record.shard) --resume \(part.path)`")
        }
        // Said beside results that do not belong (refused either way): the user fixes both at once.
        let present = Set(parts.compactMap { $0.metadata.shard?.index })
        let missing = (1...plan.shards).filter { !present.contains($0) }
        // Each missing shard on a line of its own, in shard order; past `namesShown` of them, only
        // the first `namesShown` that hold cases, and the rest (of 10,000 shards most hold none) in one.
        let named = Set(missing.count <= Self.namesShown ? missing
                        : Array(missing.lazy.filter { !plan.cases(ofShard: $0).isEmpty }.prefix(Self.namesShown)))
        for index in 1...plan.shards {
            if let gap = incomplete[index] {
                gaps.append(gap)
            } else if named.contains(index) {
                gaps.append(Self.missing(Shard(index: index, count: plan.shards), plan: plan))
            }
        }
        let rest = missing.filter { !named.contains($0) }
        if !rest.isEmpty { gaps.append(Self.missing(more: rest, plan: plan)) }
    }

    /// A part's results of no planned case run, or of another shard's cases, are refused: they
    /// are another run's, or the part was edited or resumed with another plan.
    private mutating func checkStrays(_ coverage: MergePlan.Coverage, of part: RunMerge.Part, record: ShardRecord) {
        let file = RunDirectory(path: part.path).results.path
        if let first = coverage.unplanned.first {
            mismatches.append(Diagnostic(file: file, message: "\(Self.results(coverage.unplanned.count)) of no case run its run.json plans "
                                            + "(the first: \(first)): the part holds results of another run or plan",
                                         fix: "run shard \(record.shard) again into an empty directory with the suites and options of the other shards "
                                            + "(a --resume with other --repeat, --reasoning, --backend, --case, --tag or --variant keeps the old plan's results)"))
        }
        if let first = coverage.otherShards.first {
            mismatches.append(Diagnostic(file: file, message: "\(Self.results(coverage.otherShards.count)) of cases of other shards (the first: \(first)); "
                                            + "shard \(record.shard) runs only its own cases",
                                         fix: "pass the --out directory of each `evalbench run --shard K/N` as it was written, once"))
        }
    }

    /// `1 result`, `3 results`.
    private static func results(_ count: Int) -> String {
        "\(count) result\(count == 1 ? "" : "s")"
    }

    /// The part's run.json agrees with the plan: its case runs are those the plan gives its
    /// shard, and its results record no more requests than it planned.
    private mutating func checkCounts(_ coverage: MergePlan.Coverage, of part: RunMerge.Part, record: ShardRecord, plan: MergePlan) {
        let file = RunDirectory(path: part.path).metadata.path
        let planned = plan.caseRunCount(ofShard: record.index)
        if plan.isRecorded, record.caseRuns != planned {
            mismatches.append(Diagnostic(file: file, path: "$.shard.caseRuns",
                                         message: "shard \(record.shard) records \(record.caseRuns) case runs, but the plan its cases and caseRunsOfEachCase name gives it \(planned)",
                                         fix: "run.json is written by `evalbench run`: restore it from the run's copy, or run the shard again"))
        }
        if coverage.recorded > record.requests {
            mismatches.append(Diagnostic(file: file, path: "$.shard.requests",
                                         message: "shard \(record.shard) planned \(record.requests) requests, but its results record \(coverage.recorded) of its case runs' turns",
                                         fix: "run the shard again into an empty directory; its results and run.json are not of one run"))
        }
    }

    /// `; U of P case runs unfinished: …`, naming those of cases with results; empty when none is.
    static func unfinished(_ shortfall: MergePlan.Shortfall) -> String {
        guard shortfall.unfinished > 0 else { return "" }
        let shown = shortfall.unfinishedNamed
        // "and N more" only after names: with none to name, the count says it all.
        let more = shortfall.unfinished - shown.count
        return "; \(shortfall.unfinished) of \(shortfall.planned) case runs unfinished" + (shown.isEmpty ? "" : ": " + shown.joined(separator: ", ")
            + (more > 0 ? " and \(more) more" : ""))
    }

    /// A missing shard, with the cases it leaves out.
    private static func missing(_ shard: Shard, plan: MergePlan) -> Gap {
        let cases = plan.cases(ofShard: shard.index)
        return Gap(path: "shard \(shard)", message: "shard \(shard) is missing" + (cases.isEmpty ? " (it has no cases)"
                       : ": no results for " + names(cases.prefix(namesShown).map { plan.cases[$0] }, of: cases.count)),
                   fix: "run `evalbench run ... --shard \(shard)` and pass its directory too, or pass --allow-partial")
    }

    /// The missing shards not said one by one, in one: how many, their cases, the first named.
    private static func missing(more indexes: [Int], plan: MergePlan) -> Gap {
        let cases = indexes.reduce(0) { $0 + plan.cases(ofShard: $1).count }
        let named = indexes.prefix(namesShown).map { "\($0)/\(plan.shards)" }.joined(separator: ", ")
            + (indexes.count > namesShown ? " and \(indexes.count - namesShown) more" : "")
        let held = cases == 0 ? "none of them with a case" : "with \(cases) case\(cases == 1 ? "" : "s") between them"
        return Gap(path: "shards", message: "\(indexes.count) more shard\(indexes.count == 1 ? " is" : "s are") missing, \(held): \(named)",
                   fix: "run each with `evalbench run ... --shard K/\(plan.shards)` and pass its directory too, or pass --allow-partial")
    }

    private mutating func mismatch(_ part: RunMerge.Part, _ message: String, fix: String) {
        mismatches.append(Diagnostic(file: part.path, message: message, fix: fix))
    }

    /// `N cases: a, b, c`, the first `namesShown` of `count` cases and how many more.
    static func names(_ cases: [String], of count: Int? = nil) -> String {
        let count = count ?? cases.count
        let shown = cases.prefix(namesShown)
        let more = count - shown.count
        return "\(count) case\(count == 1 ? "" : "s"): \(shown.joined(separator: ", "))" + (more > 0 ? " and \(more) more" : "")
    }
}
