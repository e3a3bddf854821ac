import Foundation

/// What `evalbench merge` is asked: the shard directories, where the merged run goes, and the
/// gates and baseline a run would have applied.
package struct MergeRequest: Sendable {
    package var partDirectories: [String]
    package var outputDirectory: String
    /// `--allow-partial`: merge what is there and say what is missing, instead of refusing.
    package var allowPartial = false
    package var gate = Gate()
    package var target: Double?
    package var baselineDirectory: String?
    package var comparisonThresholds = ComparisonThresholds()
    package var arguments: [String] = []
    package var environment: [String: String] = ProcessInfo.processInfo.environment

    package init(partDirectories: [String], outputDirectory: String) {
        self.partDirectories = partDirectories
        self.outputDirectory = outputDirectory
    }
}

/// How a merge ended: the merged results, the verdict as one run would have had it, and what
/// was missing (only with `--allow-partial`).
package struct MergeOutcome: Sendable {
    package var outputDirectory: URL
    package var results: ResultTable
    package var verdict: Gate.Verdict
    package var comparison: Comparison?
    /// What `--allow-partial` let through: missing shards and cases, each said in full.
    package var missing: [String]
    /// When parts were interrupted, how much of them did not run (as run.json records it).
    package var interruption: RunMetadata.Interruption?
}

/// `evalbench merge`: combines the shards of a run (`run --shard K/N`) into one run directory
/// whose reports, gates and exit status are those the same work run on one machine would have.
package enum RunMerge {
    /// One shard as read back: its directory, run.json and results.
    package struct Part: Sendable {
        package var path: String
        package var metadata: RunMetadata
        /// Kept as the reports keep results (about 96 bytes a result, in a temporary file), so
        /// that merging a million results holds none of them whole.
        package var results: ResultTable
    }

    /// Reads, checks and merges the parts, writes every report into the output directory and
    /// decides the verdict. Throws a `LoadError` naming each problem when the parts do not
    /// make one whole run (and nothing is written).
    package static func execute(_ request: MergeRequest) throws -> MergeOutcome {
        let parts = try read(request.partDirectories)
        let coverage = MergeCheck(parts)
        var problems = coverage.mismatches
        if !request.allowPartial { problems += coverage.gaps.map { Diagnostic(file: $0.path, message: $0.message, fix: $0.fix) } }
        var baseline: ResultTable?
        do {
            baseline = try request.baselineDirectory.map { try Comparison.readResults(inRun: $0, role: "baseline") }
        } catch let diagnostic as Diagnostic {
            problems.append(diagnostic)
        }
        if let problem = OutputDirectoryCheck.problem(request.outputDirectory, option: "--out")
            ?? OutputDirectoryCheck.overwrite(request.outputDirectory, option: "--out",
                                              kept: request.partDirectories.map { ($0, "a part") } + (request.baselineDirectory.map { [($0, "--baseline")] } ?? [])) {
            problems.append(problem)
        }
        guard problems.isEmpty else { throw LoadError(problems) }

        let directory = RunDirectory(path: request.outputDirectory)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let tables = parts.map(\.results), planIndexes = coverage.planIndexes
        let results = try directory.writeResults(streaming: planOrder(tables, planIndexes: planIndexes).lazy.map { position in
            var result = tables[Int(position.part)][Int(position.row)]
            // A part resumed with another plan kept that plan's indexes: each result gets its case run's.
            if let index = planIndexes.indices.contains(Int(position.part)) ? planIndexes[Int(position.part)][Int(position.row)] : nil {
                result.planIndex = index
            }
            return result
        })
        var metadata = mergedMetadata(parts, request)
        if let target = request.target { metadata.target = target }
        metadata.partialMerge = coverage.gaps.isEmpty ? nil : coverage.gaps.map(\.message)
        let comparison = EvalRun.compare(results, with: baseline, named: request.baselineDirectory,
                                         thresholds: request.comparisonThresholds)
        var gate = request.gate
        if comparison != nil { gate.everyCaseMustPassByDefault = false }
        let (unavailable, unavailableHere) = availability(metadata.backends)
        let suiteGates = metadata.suites.reduce(into: [String: SuiteGates]()) { $0[$1.suite] = $1.gates }
        var verdict = gate.evaluate(results, unavailableBackends: unavailable, unavailableHere: unavailableHere,
                                    suiteGates: suiteGates)
        verdict.failOnRegression(comparison, baseline: request.baselineDirectory)
        let missing = coverage.gaps.map(\.message)
        verdict.notes += missing.map { "partial merge: \($0)" }
        // Interrupted parts make an interrupted run, which the gates do not judge.
        if let interruption = metadata.interruption { verdict = interruption.verdict(notes: verdict.notes) }
        // As a run does: decided before the reports, which open with it.
        metadata.verdict = RecordedVerdict(verdict, checks: gate.checks(suites: metadata.suites.map(\.suite), suiteGates: suiteGates,
                                                                          baseline: request.baselineDirectory))
        try metadata.write(to: directory.metadata)
        // As `run --baseline` does: report.html shows the baseline's answers and flips, and
        // run.json names the baseline so that `evalbench report` shows them again.
        try EvalRun.writeReports(results, metadata: metadata, baseline: baseline, to: directory.url)
        try EvalRun.finishReports(in: directory, comparison: comparison, baseline: request.baselineDirectory,
                                  environment: request.environment)
        return MergeOutcome(outputDirectory: directory.url, results: results, verdict: verdict,
                            comparison: comparison, missing: missing, interruption: metadata.interruption)
    }

    /// Each part's run.json and results; every unreadable part named in one `LoadError`.
    static func read(_ paths: [String]) throws -> [Part] {
        var parts: [Part] = []
        var problems: [Diagnostic] = []
        for path in paths {
            do {
                let directory = RunDirectory(path: path)
                let metadata = try directory.readMetadata()
                parts.append(Part(path: path, metadata: metadata, results: try directory.readResultTable(role: "shard")))
            } catch let diagnostic as Diagnostic {
                problems.append(diagnostic)
            } catch {
                problems.append(Diagnostic(file: path, message: "could not read the shard: \(error)",
                                           fix: "pass the --out directory of an `evalbench run --shard K/N`"))
            }
        }
        guard problems.isEmpty else { throw LoadError(problems) }
        return parts
    }

    /// Where each result of `tables` goes in the order one run's reports list them: plan
    /// order, then turn; results without a plan index after, by key, then turn. A row's plan
    /// index is its table's unless `planIndexes` (by table, then row) gives another. Sorted as
    /// 24 bytes a result, read from the tables without building the results (but the keys of
    /// those without a plan index).
    static func planOrder(_ tables: [ResultTable], planIndexes: [[Int: Int]] = []) -> [(part: Int32, row: Int32)] {
        struct Position {
            var plan: Int
            var turn: Int32
            var part: Int32
            var row: Int32
        }
        var positions: [Position] = []
        positions.reserveCapacity(tables.reduce(0) { $0 &+ $1.count })
        for (part, table) in tables.enumerated() {
            let given = planIndexes.indices.contains(part) ? planIndexes[part] : [:]
            for row in table.indices {
                positions.append(Position(plan: given[row] ?? table.planIndex(at: row) ?? .max, turn: Int32(clamping: table.turn(at: row)),
                                          part: Int32(truncatingIfNeeded: part), row: Int32(truncatingIfNeeded: row)))
            }
        }
        positions.sort { lhs, rhs in
            if lhs.plan != rhs.plan { return lhs.plan < rhs.plan }
            // One plan index is one case run, of one key; only results without one are told apart by key.
            if lhs.plan == .max {
                let left = tables[Int(lhs.part)][Int(lhs.row)].key, right = tables[Int(rhs.part)][Int(rhs.row)].key
                if left != right { return left < right }
            }
            return (lhs.turn, lhs.part, lhs.row) < (rhs.turn, rhs.part, rhs.row)
        }
        return positions.map { ($0.part, $0.row) }
    }

    /// The first part's run.json as one run's: no shard, the earliest start and latest end,
    /// each backend as the worst part saw it (unavailable anywhere is unavailable), and the
    /// interruptions of all parts as one.
    static func mergedMetadata(_ parts: [Part], _ request: MergeRequest) -> RunMetadata {
        var metadata = parts[0].metadata
        metadata.shard = nil
        metadata.interruption = interruption(of: parts)
        metadata.mergedFrom = parts.map(\.path)
        metadata.arguments = request.arguments
        metadata.baseline = request.baselineDirectory.map(RunMetadata.absolutePath)
        metadata.startedAt = parts.map(\.metadata.startedAt).min() ?? metadata.startedAt
        let ends = parts.compactMap(\.metadata.endedAt)
        metadata.endedAt = ends.count == parts.count ? ends.max() : nil
        for part in parts.dropFirst() {
            for backend in part.metadata.backends {
                if let at = metadata.backends.firstIndex(where: { $0.name == backend.name }) {
                    if metadata.backends[at].availability == "available" { metadata.backends[at].availability = backend.availability }
                } else {
                    metadata.backends.append(backend)
                }
            }
        }
        return metadata
    }

    /// The interrupted parts' unfinished requests of every part's planned ones, naming the
    /// interrupted parts (what `--resume` finishes); nil when no part was interrupted.
    static func interruption(of parts: [Part]) -> RunMetadata.Interruption? {
        let interrupted = parts.filter { $0.metadata.interruption != nil }
        guard !interrupted.isEmpty else { return nil }
        let planned = parts.reduce(0) { $0 + ($1.metadata.shard?.requests ?? $1.metadata.interruption?.plannedRequests ?? 0) }
        // Each count is range-checked when read, but a part's own planned count may disagree with
        // its shard's (an edited run.json): the merged run.json must stay readable (unfinished ≤ planned).
        return RunMetadata.Interruption(
            unfinishedRequests: min(planned, interrupted.reduce(0) { $0 + ($1.metadata.interruption?.unfinishedRequests ?? 0) }),
            plannedRequests: planned,
            parts: interrupted.map(\.path))
    }

    /// The backends run.json says were unavailable, and those that cannot run on that platform.
    static func availability(_ backends: [RunMetadata.BackendInfo]) -> ([String], [String: String]) {
        var unavailable: [String] = []
        var unavailableHere: [String: String] = [:]
        let herePrefix = "unavailable here (case runs skipped): "
        for backend in backends {
            if backend.availability.hasPrefix(herePrefix) {
                unavailableHere[backend.name] = String(backend.availability.dropFirst(herePrefix.count))
            } else if backend.availability != "available" {
                unavailable.append(backend.name)
            }
        }
        return (unavailable, unavailableHere)
    }
}

extension Gate.Verdict {
    /// A regression against the baseline fails the gate (exit 1) and says where to look.
    package mutating func failOnRegression(_ comparison: Comparison?, baseline: String?) {
        guard let comparison, comparison.isRegression else { return }
        reasons.append("regression against the baseline \(baseline ?? ""): see \(RunDirectory.FileName.compareMarkdown)")
        if exitStatus == .success { exitStatus = .gateFailed }
    }
}
