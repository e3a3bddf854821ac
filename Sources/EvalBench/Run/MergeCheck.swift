import Foundation

/// Whether the shards given to `evalbench merge` make one whole run: the same split, suites,
/// config and matrix (else `mismatches`, always refused), no case in two parts (a mismatch
/// too), and every case present (else `gaps`, which `--allow-partial` lets through, said).
package struct MergeCheck: Sendable {
    /// What is missing, with the part or shard it belongs to and how to complete it.
    package struct Gap: Sendable, Equatable {
        package var path: String
        package var message: String
        package var fix: String
    }

    package private(set) var mismatches: [Diagnostic] = []
    package private(set) var gaps: [Gap] = []

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
            }
        }
        for index in Set(records.map(\.record.index)).sorted() {
            let same = records.filter { $0.record.index == index }.map(\.part.path)
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

    /// Every case of the plan has results in exactly one part, and each part finished.
    private mutating func checkCoverage(_ parts: [RunMerge.Part]) {
        guard let reference = parts.first?.metadata.shard else { return }
        var partsOfCase: [String: [String]] = [:]
        for part in parts {
            // Read from the table without building the results; a case's results are mostly neighbours.
            var cases: Set<String> = []
            var last: (suite: String, caseID: String)?
            for row in part.results.indices {
                let suite = part.results.suite(at: row), caseID = part.results.caseID(at: row)
                if let last, last.suite == suite, last.caseID == caseID { continue }
                last = (suite, caseID)
                cases.insert("\(suite)/\(caseID)")
            }
            for caseID in cases { partsOfCase[caseID, default: []].append(part.path) }
        }
        let overlapping = reference.cases.filter { (partsOfCase[$0]?.count ?? 0) > 1 }
        if !overlapping.isEmpty {
            let named = overlapping.prefix(Self.namesShown).map { "\($0) (\(partsOfCase[$0]!.joined(separator: ", ")))" }
            let more = overlapping.count > Self.namesShown ? " and \(overlapping.count - Self.namesShown) more" : ""
            mismatches.append(Diagnostic(file: parts[0].path, message: "\(overlapping.count) cases have results in more than one part: "
                                            + named.joined(separator: "; ") + more,
                                         fix: "merge the shards of one split, each run once with --shard K/N"))
            return
        }
        let present = Dictionary(parts.compactMap { part in part.metadata.shard.map { ($0.index, part) } }) { first, _ in first }
        var caseRunsOfSuite: [String: Set<String>]?
        for index in 1...reference.count {
            let cases = reference.cases.filter { Self.shard(of: $0, count: reference.count) == index && partsOfCase[$0] == nil }
            let shard = Shard(index: index, count: reference.count)
            if let part = present[index] {
                if let record = part.metadata.shard, part.results.count < record.requests || !cases.isEmpty {
                    if caseRunsOfSuite == nil { caseRunsOfSuite = Self.caseRunsOfSuite(parts) }
                    gaps.append(Gap(path: part.path, message: "shard \(shard) (\(part.path)) is incomplete: \(part.results.count) of \(record.requests) requests recorded"
                                        + Self.unfinishedCaseRuns(part, planned: record.caseRuns, caseRunsOfSuite: caseRunsOfSuite ?? [:])
                                        + (cases.isEmpty ? "" : "; no results for \(Self.names(cases))"),
                                    fix: "finish it with `evalbench run ... --shard \(shard) --resume \(part.path)`"))
                }
            } else {
                gaps.append(Gap(path: "shard \(shard)", message: "shard \(shard) is missing" + (cases.isEmpty ? " (it has no cases)" : ": no results for \(Self.names(cases))"),
                                fix: "run `evalbench run ... --shard \(shard)` and pass its directory too, or pass --allow-partial"))
            }
        }
    }

    /// A case run's key without its `suite/case/` prefix: `variant/backend/reasoning/repeat`.
    private static func caseRun(of key: String, suite: String, caseID: String) -> String? {
        let prefix = "\(suite)/\(caseID)/"
        return key.hasPrefix(prefix) ? String(key.dropFirst(prefix.count)) : nil
    }

    /// Each suite's case runs (`variant/backend/reasoning/repeat`) as any part recorded them
    /// for any of its cases: the plan gives every case of a suite the same ones.
    static func caseRunsOfSuite(_ parts: [RunMerge.Part]) -> [String: Set<String>] {
        var runs: [String: Set<String>] = [:]
        for part in parts {
            for row in part.results.indices {
                let suite = part.results.suite(at: row)
                if let run = caseRun(of: part.results.key(at: row), suite: suite, caseID: part.results.caseID(at: row)) {
                    runs[suite, default: []].insert(run)
                }
            }
        }
        return runs
    }

    /// `; U of P case runs unfinished: …` for a part that finished fewer than its `planned` case
    /// runs, naming those its results show: a case run with turns missing, and one that other
    /// cases of its suite ran and this case did not (the first `namesShown`, then how many more).
    static func unfinishedCaseRuns(_ part: RunMerge.Part, planned: Int, caseRunsOfSuite: [String: Set<String>]) -> String {
        struct CaseName: Hashable {
            var suite: String
            var caseID: String
        }
        var turnsOfKey: [String: (recorded: Set<Int>, turns: Int)] = [:]
        var runsOfCase: [CaseName: Set<String>] = [:]
        for row in part.results.indices {
            let key = part.results.key(at: row), name = CaseName(suite: part.results.suite(at: row), caseID: part.results.caseID(at: row))
            turnsOfKey[key, default: ([], part.results.turns(at: row))].recorded.insert(part.results.turn(at: row))
            if let run = caseRun(of: key, suite: name.suite, caseID: name.caseID) { runsOfCase[name, default: []].insert(run) }
        }
        let unfinished = planned - turnsOfKey.values.filter { $0.recorded.count >= $0.turns }.count
        guard unfinished > 0 else { return "" }
        var named = turnsOfKey.filter { $0.value.recorded.count < $0.value.turns }
            .map { "\($0.key) (\($0.value.recorded.count) of \($0.value.turns) turns)" }
        for (name, runs) in runsOfCase {
            named += caseRunsOfSuite[name.suite, default: []].subtracting(runs).map { "\(name.suite)/\(name.caseID)/\($0) (no turn)" }
        }
        let shown = named.sorted().prefix(namesShown)
        let more = unfinished - shown.count
        // "and N more" only after names: with none to name, the count says it all.
        return "; \(unfinished) of \(planned) case runs unfinished" + (shown.isEmpty ? "" : ": " + shown.joined(separator: ", ")
            + (more > 0 ? " and \(more) more" : ""))
    }

    private mutating func mismatch(_ part: RunMerge.Part, _ message: String, fix: String) {
        mismatches.append(Diagnostic(file: part.path, message: message, fix: fix))
    }

    /// The shard of `suite/case` among `count`.
    static func shard(of caseKey: String, count: Int) -> Int {
        let slash = caseKey.firstIndex(of: "/") ?? caseKey.endIndex
        let caseID = slash == caseKey.endIndex ? "" : String(caseKey[caseKey.index(after: slash)...])
        return Shard.of(suite: String(caseKey[..<slash]), caseID: caseID, count: count)
    }

    /// `a, b, c`, or the first `namesShown` and how many more.
    static func names(_ cases: [String]) -> String {
        let shown = cases.prefix(namesShown).joined(separator: ", ")
        let more = cases.count - min(cases.count, namesShown)
        return "\(cases.count) case\(cases.count == 1 ? "" : "s"): \(shown)" + (more > 0 ? " and \(more) more" : "")
    }
}
