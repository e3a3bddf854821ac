import Foundation

/// The whole plan of a sharded run as `evalbench merge` knows it from run.json (`ShardRecord`):
/// every case in plan order with its shard, worked out once, and every case run numbered by its
/// place in the plan (its case's first place, plus its place among the case runs every case of
/// its suite has). A part's results are checked against it row by row without making a set of
/// keys: a row is a case number and a case-run number, and a part's counts are kept by number.
struct MergePlan {
    /// `suite/case` of every case, in plan order.
    let cases: [String]
    /// N, the number of shards.
    let shards: Int
    /// Whether the case runs are those run.json names (`caseRunsOfEachCase`), so a case run's
    /// number is its plan index; else (a run.json from before) those the parts' results hold.
    let isRecorded: Bool
    /// Each case's number, by `suite/case`.
    private let caseNumbers: [String: Int]
    /// Each case's suite, as a number into `runsOfSuite`.
    private let suiteOfCase: [Int]
    /// The cases of each shard, by number in plan order (index 0 unused), and each case's shard
    /// (at most `RunLimits.maxShards`), each case hashed once.
    private let casesOfShard: [[Int]]
    private let shardOfCase: [UInt16]
    /// Each suite's case runs, `variant/backend/reasoning/repeat`, in plan order, and their places.
    private let runsOfSuite: [[String]]
    private let runPlaces: [[Substring: Int]]
    /// The number of each case's first case run; one entry more, the plan's case runs.
    private let firstRun: [Int]

    /// The plan `record` names, or (from a run.json that does not name its case runs) with the
    /// case runs the parts' results hold. Throws when the plan has more case runs than can be counted.
    init(_ record: ShardRecord, file: String, parts: [RunMerge.Part]) throws(Diagnostic) {
        cases = record.cases
        // At least 1 even for a record made in code: run.json's is read range-checked.
        shards = max(1, record.count)
        isRecorded = record.caseRunsOfEachCase != nil
        let runs = record.caseRunsOfEachCase ?? Self.caseRunsHeld(by: parts)
        let suites = Array(runs.keys).sorted()
        let suiteNumbers = Dictionary(uniqueKeysWithValues: suites.enumerated().map { ($1, $0) })
        let runsOfSuite = suites.map { runs[$0] ?? [] }
        self.runsOfSuite = runsOfSuite
        runPlaces = runsOfSuite.map { names in
            Dictionary(names.enumerated().map { (Substring($1), $0) }) { first, _ in first }
        }
        var numbers: [String: Int] = [:]
        var suiteOfCase: [Int] = [], firstRun = [0], casesOfShard = [[Int]](repeating: [], count: shards + 1)
        var shardOfCase: [UInt16] = []
        numbers.reserveCapacity(cases.count)
        for (number, name) in cases.enumerated() {
            numbers[name] = number
            // A case whose suite no result names has no case run to check (only without a record).
            let suite = suiteNumbers[String(ShardRecord.suite(ofCase: name))]
            suiteOfCase.append(suite ?? -1)
            let (next, overflow) = firstRun[number].addingReportingOverflow(suite.map { runsOfSuite[$0].count } ?? 0)
            guard !overflow else {
                throw Diagnostic(file: file, path: "$.shard.caseRunsOfEachCase",
                                 message: "the plan run.json names has more case runs than can be counted",
                                 fix: "run.json is written by `evalbench run`: restore it from the run's copy, or run the shard again")
            }
            firstRun.append(next)
            let shard = Shard.of(caseNamed: name, count: shards)
            shardOfCase.append(UInt16(truncatingIfNeeded: shard))
            casesOfShard[shard].append(number)
        }
        caseNumbers = numbers
        self.suiteOfCase = suiteOfCase
        self.casesOfShard = casesOfShard
        self.shardOfCase = shardOfCase
        self.firstRun = firstRun
    }

    /// Each suite's case runs as the parts' results hold them, in the order first seen: the plan
    /// of a run.json from before `caseRunsOfEachCase` was recorded.
    private static func caseRunsHeld(by parts: [RunMerge.Part]) -> [String: [String]] {
        var runs: [String: [String]] = [:]
        var seen: Set<String> = []
        for part in parts {
            for row in part.results.indices {
                let suite = part.results.suite(at: row), key = part.results.key(at: row)
                let prefix = "\(suite)/\(part.results.caseID(at: row))/"
                guard key.hasPrefix(prefix) else { continue }
                let run = String(key.dropFirst(prefix.count))
                if seen.insert("\(suite)/\(run)").inserted { runs[suite, default: []].append(run) }
            }
        }
        return runs
    }

    /// The cases of shard `index`, by number in plan order.
    func cases(ofShard index: Int) -> [Int] {
        casesOfShard.indices.contains(index) ? casesOfShard[index] : []
    }

    /// How many case runs the cases of shard `index` have.
    func caseRunCount(ofShard index: Int) -> Int {
        cases(ofShard: index).reduce(0) { $0 &+ (firstRun[$1 + 1] - firstRun[$1]) }
    }

    /// The key of case run `run` (a number of case `number`).
    func key(ofRun run: Int, case number: Int) -> String {
        "\(cases[number])/\(runsOfSuite[suiteOfCase[number]][run - firstRun[number]])"
    }

    /// The case runs of case `number`, by number.
    func runs(ofCase number: Int) -> Range<Int> {
        firstRun[number]..<firstRun[number + 1]
    }

    /// The case whose case runs hold run `run`.
    func caseNumber(ofRun run: Int) -> Int {
        var low = 0, high = cases.count - 1
        while low < high {
            let middle = low + (high - low + 1) / 2
            if firstRun[middle] <= run { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Case `suite/caseID`'s number, nil when the plan has no such case.
    func caseNumber(suite: String, caseID: String) -> Int? {
        caseNumbers["\(suite)/\(caseID)"]
    }

    /// The shard of case `number`.
    func shard(ofCase number: Int) -> Int {
        Int(shardOfCase[number])
    }

    /// The number of the case run `key` names, of case `number` (`suite/caseID`); nil when the
    /// plan gives the case no such case run.
    func run(key: String, suite: String, caseID: String, case number: Int) -> Int? {
        let suiteNumber = suiteOfCase[number]
        guard suiteNumber >= 0 else { return nil }
        // `suite/caseID/` and then the rest, compared as bytes without making the prefix.
        let bytes = key.utf8
        var start = bytes.startIndex
        for part in [suite, caseID] {
            guard bytes[start...].starts(with: part.utf8) else { return nil }
            start = bytes.index(start, offsetBy: part.utf8.count)
            guard start < bytes.endIndex, bytes[start] == UInt8(ascii: "/") else { return nil }
            start = bytes.index(after: start)
        }
        return runPlaces[suiteNumber][key[start...]].map { firstRun[number] + $0 }
    }
}

extension MergePlan {
    /// Results a part holds that it should not: how many, and the first (`key turn T`).
    struct Strays {
        var count = 0
        var first: String?

        mutating func add(_ description: @autoclosure () -> String) {
            if first == nil { first = description() }
            count += 1
        }
    }

    /// What one part's results hold of the plan.
    struct Coverage {
        /// Requests recorded of the planned case runs of the part's own cases.
        var recorded = 0
        /// The turns recorded of each case run that has any, by number.
        var turnsOfRun: [Int: Int] = [:]
        /// Each case's turns as its first result says, by number, for the cases with results.
        var turnsOfCase: [Int: Int] = [:]
        /// Results of no planned case run (or of a turn it does not have), and of other shards' cases.
        var unplanned = Strays()
        var otherShards = Strays()
        /// The rows whose recorded plan index is not their case run's (a part resumed with
        /// another plan keeps the old one's), with their case run's.
        var planIndexes: [Int: Int] = [:]
    }

    /// What `results`, the part of shard `index`, hold of the plan, read row by row from the
    /// table without building the results.
    func coverage(of results: ResultTable, shard index: Int) -> Coverage {
        var coverage = Coverage()
        // A case's results are mostly neighbours: its number is looked up when the case changes.
        var last: (suite: String, caseID: String, number: Int?)?
        for row in results.indices {
            let suite = results.suite(at: row), caseID = results.caseID(at: row)
            if last.map({ $0.suite != suite || $0.caseID != caseID }) ?? true {
                last = (suite, caseID, caseNumber(suite: suite, caseID: caseID))
            }
            let key = results.key(at: row), turn = results.turn(at: row), turns = results.turns(at: row)
            guard let number = last?.number, let run = run(key: key, suite: suite, caseID: caseID, case: number),
                  turn >= 1, turn <= turns, coverage.turnsOfCase[number].map({ $0 == turns }) ?? true else {
                coverage.unplanned.add("\(key) turn \(turn)")
                continue
            }
            guard shard(ofCase: number) == index else {
                coverage.otherShards.add("\(key) turn \(turn), of shard \(shard(ofCase: number))/\(shards)")
                continue
            }
            coverage.turnsOfCase[number] = turns
            coverage.turnsOfRun[run, default: 0] += 1
            coverage.recorded += 1
            if isRecorded, results.planIndex(at: row) != run { coverage.planIndexes[row] = run }
        }
        return coverage
    }

    /// What shard `index` lacks of its plan, given what its part holds.
    struct Shortfall {
        /// The case runs the shard's cases have, and how many of them did not record every turn.
        var planned: Int
        var unfinished: Int
        /// The first unfinished case runs of cases with results: `key (1 of 2 turns)`, `key (no turn)`.
        var unfinishedNamed: [String] = []
        /// The shard's cases with no result: how many, and the first.
        var missingCases: Int
        var missingNamed: [String] = []
    }

    /// What shard `index` lacks given `coverage`, naming the first `limit` of each kind in plan
    /// order. Stops looking once both lists are full, so a few missing case runs of a big part
    /// cost no walk over its whole plan.
    func shortfall(_ coverage: Coverage, shard index: Int, limit: Int) -> Shortfall {
        let cases = cases(ofShard: index), planned = caseRunCount(ofShard: index)
        let finished = coverage.turnsOfRun.reduce(0) { count, entry in
            count + (coverage.turnsOfCase[caseNumber(ofRun: entry.key)] == entry.value ? 1 : 0)
        }
        var shortfall = Shortfall(planned: planned, unfinished: planned - finished,
                                  missingCases: cases.count - coverage.turnsOfCase.count)
        for number in cases {
            if shortfall.missingNamed.count >= min(limit, shortfall.missingCases),
               shortfall.unfinishedNamed.count >= limit { break }
            guard let turns = coverage.turnsOfCase[number] else {
                if shortfall.missingNamed.count < limit { shortfall.missingNamed.append(self.cases[number]) }
                continue
            }
            for run in runs(ofCase: number) {
                guard shortfall.unfinishedNamed.count < limit else { break }
                let recorded = coverage.turnsOfRun[run] ?? 0
                if recorded < turns {
                    shortfall.unfinishedNamed.append(key(ofRun: run, case: number)
                                                     + (recorded == 0 ? " (no turn)" : " (\(recorded) of \(turns) turns)"))
                }
            }
        }
        return shortfall
    }
}
