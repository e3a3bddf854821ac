import Foundation

/// A run's output directory: the one place that knows the names of the files a run writes
/// (DESIGN.md, "Files a run writes") and the one way to read a run back.
package struct RunDirectory: Sendable, Equatable {
    /// The directory itself.
    package let url: URL

    /// The run directory at `url`.
    package init(_ url: URL) {
        self.url = url
    }

    /// The run directory at `path`.
    package init(path: String) {
        self.init(URL(fileURLWithPath: path))
    }

    /// The names of the files a run writes.
    package enum FileName {
        package static let results = "results.jsonl"
        package static let metadata = "run.json"
        package static let summaryMarkdown = "summary.md"
        package static let summaryCSV = "summary.csv"
        package static let casesCSV = "cases.csv"
        package static let resultsCSV = "results.csv"
        package static let metricsCSV = "metrics.csv"
        package static let recommendationCSV = "recommendation.csv"
        package static let junit = "junit.xml"
        package static let html = "report.html"
        package static let compareMarkdown = "compare.md"
        package static let compareCSV = "compare.csv"
    }

    /// The file `name` of this run (one of `FileName`, or a chart's file name).
    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// `results.jsonl`: one result per request, appended as each finishes.
    package var results: URL { file(FileName.results) }
    /// `run.json`: what ran, where, with which inputs, and when.
    package var metadata: URL { file(FileName.metadata) }
    /// `summary.md`, the report a person reads first.
    package var summaryMarkdown: URL { file(FileName.summaryMarkdown) }
    /// `compare.md`, written when the run is compared with a baseline.
    package var compareMarkdown: URL { file(FileName.compareMarkdown) }

    /// The recorded results of this run; `role` ("baseline", "current", "resumed", "replayed")
    /// says in messages which run it is. Throws a `Diagnostic` naming the path (and the line of a malformed result)
    /// with how to fix it.
    package func readResults(role: String? = nil) throws -> [RequestResult] {
        try readingResults(role: role) { try ResultStore.read($0) }
    }

    /// The recorded results as `readResults` reads them, kept compactly for the reports. A line
    /// before the last that is not a result (the file edited, or damaged) is refused with its
    /// place, unless `skippingDamage` (`--resume`, which sends that request again): the reports,
    /// a comparison or a merge without that request would read as whole. A torn last line (a
    /// crash while writing it) and a repeated line are skipped with a warning, as before.
    package func readResultTable(role: String? = nil, skippingDamage: Bool = false) throws -> ResultTable {
        var damage: Diagnostic?
        let table = try readingResults(role: role) { url in
            try ResultStore.readTable(url) { diagnostic in
                guard !skippingDamage, ResultStore.isDamagedLine(diagnostic) else { return ResultStore.warn(diagnostic) }
                if damage == nil { damage = diagnostic }
            }
        }
        guard let damage else { return table }
        let run = role.map { "the \($0) run's" } ?? "this run's"
        throw Diagnostic(file: damage.file, location: damage.location,
                         message: "\(damage.message.replacingOccurrences(of: ", skipped", with: "")); \(run) results.jsonl was edited or damaged there, and what is read from it without that request would read as whole",
                         fix: "restore the file, or remove that line and finish the run with `evalbench run ... --resume \(url.path)`, which sends its request again")
    }

    /// Why `evalbench report` refuses to write this run's reports again: its results file holds
    /// no results (emptied, truncated, or every line torn), and reports written from it would
    /// replace the run's with empty ones. Nil when there are results, or when the run planned
    /// none (a shard that holds no cases).
    package func nothingToReport(_ results: ResultTable, metadata: RunMetadata) -> Diagnostic? {
        guard results.isEmpty, metadata.shard?.caseRuns != 0 else { return nil }
        let resume = "`evalbench run ... --resume \(url.path)` sends what is missing"
        if metadata.interruption != nil || metadata.endedAt == nil {
            return Diagnostic(file: self.results.path,
                              message: "holds no results: the run stopped before any request finished; the reports beside it were left as they were",
                              fix: resume)
        }
        return Diagnostic(file: self.results.path,
                          message: "holds no results, so there is nothing to report; the reports beside it were left as they were",
                          fix: "check that this is the run's directory and that its results.jsonl was not emptied or cut short; " + resume)
    }

    /// Why this run's results cannot be read, or nil when its directory holds a results file:
    /// the directory is missing or a file, or has no results.jsonl. `role` as for `readResults`.
    package func missingResults(role: String?) -> Diagnostic? {
        let run = role.map { "the \($0) run" } ?? "the run"
        if let problem = missingDirectory(run) { return problem }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: results.path, isDirectory: &isDirectory) else {
            return Diagnostic(file: results.path, message: "\(run) directory has no \(FileName.results)",
                              fix: "pass the --out directory of an earlier `evalbench run`, or rerun it there")
        }
        if isDirectory.boolValue {
            return Diagnostic(file: results.path, message: "\(run)'s \(FileName.results) is a directory, not the file of results a run writes",
                              fix: "pass the --out directory of an earlier `evalbench run`, or move that directory away and rerun it there")
        }
        return nil
    }

    /// `read` of this run's results file, once the directory and the file are known to exist.
    private func readingResults<Results>(role: String?, _ read: (URL) throws -> Results) throws -> Results {
        if let problem = missingResults(role: role) { throw problem }
        do {
            return try read(results)
        } catch let diagnostic as Diagnostic {
            throw diagnostic
        } catch {
            throw Diagnostic(file: results.path, message: "could not read \(role.map { "the \($0) results" } ?? "the results"): \(error.localizedDescription)",
                             fix: "check that the file is readable")
        }
    }

    /// The results of the case runs that finished every turn, for `--resume`: a case run cut
    /// off mid-way runs again, and so does one with a turn that never reached the model (an
    /// infrastructure error: a server down or still loading, a timeout, a rate limit that
    /// outlasted the retries), which is why a run is resumed, or that fail fast skipped after
    /// such errors. What the model did (a refusal, a guardrail, an answer that could not be
    /// decoded) is kept. Each finished result is given to `keep`, which returns it as kept
    /// (changed, or not), or nil to leave it out. They come in the order
    /// results.jsonl has them, as a `ResultTable`, so a million are not held whole: each case
    /// run's turns are found as neighbours in plan order (by key where there is no plan
    /// index), not by a dictionary of every key.
    package func finishedResults(keeping keep: (RequestResult) -> RequestResult? = { $0 }) throws -> ResultTable {
        let all = try readResultTable(role: "resumed", skippingDamage: true)
        let order = RunMerge.planOrder([all])
        var finished = [Bool](repeating: false, count: all.count)
        var start = 0
        while start < order.count {
            // Read by field: each result is built once, below, when it is kept.
            let firstRow = Int(order[start].row)
            let planIndex = all.planIndex(at: firstRow), key = all.key(at: firstRow)
            var end = start + 1
            while end < order.count, all.planIndex(at: Int(order[end].row)) == planIndex, all.key(at: Int(order[end].row)) == key {
                end += 1
            }
            let reachedModel = (start..<end).allSatisfy { position in
                let row = Int(order[position].row)
                if all.errorKind(at: row).map(Gate.infrastructureKinds.contains) == true { return false }
                // A skip is read whole (skips are few): only fail fast's is one to send again.
                return all.statusAndOwnLatency(at: row).status != .skipped || !FailFast.stopped(all[row].skipReason)
            }
            if end - start == all.turns(at: firstRow), reachedModel {
                for position in start..<end { finished[Int(order[position].row)] = true }
            }
            start = end
        }
        var kept = ResultTable()
        for row in all.indices where finished[row] {
            if let result = keep(all[row]) { kept.append(result) }
        }
        return kept
    }

    /// Why this directory is no run's: it is missing or a file; nil when it is a directory.
    private func missingDirectory(_ run: String) -> Diagnostic? {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        guard !exists || !isDirectory.boolValue else { return nil }
        return Diagnostic(file: url.path, message: exists ? "\(run) directory is a file" : "\(run) directory does not exist",
                          fix: "pass the --out directory of an earlier `evalbench run`; it holds \(FileName.results)")
    }

    /// This run's `run.json`.
    package func readMetadata() throws -> RunMetadata {
        if let problem = missingDirectory("the run") { throw problem }
        guard FileManager.default.fileExists(atPath: metadata.path) else {
            throw Diagnostic(file: metadata.path, message: "the run directory has no \(FileName.metadata)",
                             fix: "pass the --out directory of an earlier `evalbench run`, or rerun it there")
        }
        do {
            return try RunMetadata.read(from: metadata)
        } catch {
            throw unreadableMetadata(error)
        }
    }

    /// Why run.json could not be read, where in it (line and column of a syntax error, the JSON
    /// path of a value of the wrong shape), and what to do: never Swift's own error dump.
    private func unreadableMetadata(_ error: any Error) -> Diagnostic {
        let fix = "run.json is written by `evalbench run`: restore it from the run's copy, or start a new run with --out"
        let data = (try? Data(contentsOf: metadata)) ?? Data()
        do {
            _ = try JSONDocument(data: data, file: metadata.path)
        } catch {
            var syntax = error
            syntax.fix = fix
            return syntax
        }
        let path: String? = switch error {
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
             let DecodingError.dataCorrupted(context):
            Self.jsonPath(context.codingPath)
        case let DecodingError.keyNotFound(_, context): Self.jsonPath(context.codingPath)
        default: nil
        }
        return Diagnostic(file: metadata.path, path: path, message: "\(FileName.metadata) is not a run's metadata: \(ResultStore.describe(error))",
                          fix: fix)
    }

    /// `$.suites[0].sha256` for a decoder's coding path.
    private static func jsonPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("$") { path, key in key.intValue.map { "\(path)[\($0)]" } ?? "\(path).\(key.stringValue)" }
    }

    /// Starts this run's `results.jsonl` with `kept` (the finished results of a resumed run), or empty.
    func startResults(keeping kept: ResultTable) throws -> ResultStore {
        try ResultStore(url: results, existing: try writeResults(streaming: kept))
    }

    /// Writes `results.jsonl` whole: one line per result, in the order given.
    package func writeResults(_ all: [RequestResult]) throws {
        _ = try writeResults(streaming: all)
    }

    /// Writes `results.jsonl` whole, one line per result in the order given, as a run writes
    /// them, and gives them back as the reports keep them. Lines go out a megabyte at a time to a
    /// temporary file in the directory, renamed over `results.jsonl` once all are written, so
    /// a million results (`merge`'s) are never held as text, and a failed write leaves the old
    /// file as it was.
    package func writeResults<Results: Sequence<RequestResult>>(streaming all: Results) throws -> ResultTable {
        // A registered temporary file (`TemporaryFiles`): a second Ctrl-C removes it.
        let replacement: TemporaryFiles.Replacement
        do {
            replacement = try TemporaryFiles.Replacement(results)
        } catch {
            throw ReportWriteFailure(path: results.path, reason: "could not create its temporary file: \(error.localizedDescription)")
        }
        var table = ResultTable()
        do {
            var buffer = Data()
            buffer.reserveCapacity(1 << 20 + 4_096)
            for result in all {
                let encoded = ResultStore.encoded(result)
                buffer.append(try encoded.line.get())
                buffer.append(UInt8(ascii: "\n"))
                table.append(encoded.result)
                if buffer.count >= 1 << 20 {
                    try replacement.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            // Not synchronised to disk (no fsync), as the whole-file write before it was not: every
            // run starts its results.jsonl here, and an fsync on a busy disk held a thread for seconds.
            try replacement.write(buffer)
            try replacement.commit()
        } catch {
            replacement.abandon()
            throw error as? ReportWriteFailure ?? ReportWriteFailure(path: results.path, reason: error.localizedDescription)
        }
        return table
    }
}
