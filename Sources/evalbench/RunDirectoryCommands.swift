import EvalBench
import EvalBenchCommandLine
import Foundation

/// `evalbench report DIR`: rewrites a run's reports from its results.jsonl and run.json.
func commandReport(_ parsed: ParsedCommand) -> ExitStatus {
    let directory = URL(fileURLWithPath: parsed.arguments[0])
    let results: ResultTable
    var metadata: RunMetadata
    do {
        results = try RunDirectory(directory).readResultTable()
        metadata = try RunDirectory(directory).readMetadata()
    } catch {
        failLoading(error, outcome: "no report was written")
    }
    if let problem = RunDirectory(directory).nothingToReport(results, metadata: metadata) {
        printError(problem.description)
        fail("1 problem found; no report was written", status: .usage)
    }
    if let target = parsed.target() { metadata.target = target }
    // The run's --baseline, when it is still there, for the baseline answers in report.html.
    var baseline: ResultTable?
    if let path = metadata.baseline {
        do {
            baseline = try Comparison.readResults(inRun: path, role: "baseline")
        } catch {
            FileHandle.standardError.write(Data("evalbench: warning: the run's baseline \(path) could not be read, so report.html shows no baseline answers: \(error)\n".utf8))
        }
    }
    do {
        try EvalRun.writeReports(results, metadata: metadata, baseline: baseline, verdictNote: RecordedVerdict.rewrittenNote,
                                 to: directory)
    } catch {
        fail("\(error)", status: .infrastructure)
    }
    print("evalbench: reports rewritten from \(results.count) results in \(directory.path)")
    return .success
}

/// `evalbench compare BASELINE_DIR CURRENT_DIR`: writes compare.md and compare.csv; a
/// significant regression fails the gate.
func commandCompare(_ parsed: ParsedCommand) -> ExitStatus {
    let baselinePath = parsed.arguments[0], currentPath = parsed.arguments[1]
    var problems: [Diagnostic] = []
    var runs: [ResultTable] = []
    for (path, role) in [(baselinePath, "baseline"), (currentPath, "current")] {
        do {
            runs.append(try Comparison.readResults(inRun: path, role: role))
        } catch let diagnostic as Diagnostic {
            problems.append(diagnostic)
        } catch {
            problems.append(Diagnostic(file: path, message: "\(error)"))
        }
    }
    if let out = parsed.value(Options.compareOut), let problem = OutputDirectoryCheck.problem(out, option: "--out") {
        problems.append(problem)
    }
    guard problems.isEmpty else {
        printError(LoadError(problems).description)
        fail("\(problems.count) problem\(problems.count == 1 ? "" : "s") found; nothing was compared", status: .usage)
    }
    // Two runs with no case run in common compare nothing, and would report no regression.
    guard Comparison.shareACaseRun(runs[0], runs[1]) else {
        printError(Diagnostic(file: currentPath, message: "the two runs share no case run (suite, case, variant, backend and level): there is nothing to compare",
                              fix: "compare runs of the same suites on the same backends and levels").description)
        fail("1 problem found; nothing was compared", status: .usage)
    }
    let comparison = Comparison(baseline: runs[0], current: runs[1], thresholds: parsed.comparisonThresholds())
    // Nor do runs whose shared case runs were all skipped in one of them.
    guard comparison.pairedCaseRuns > 0 else {
        printError(Diagnostic(file: currentPath, message: "every case run the two runs share was skipped in one of them (a backend unavailable there?): there is nothing to compare",
                              fix: "compare runs in which the same backends ran").description)
        fail("1 problem found; nothing was compared", status: .usage)
    }
    let output = URL(fileURLWithPath: parsed.value(Options.compareOut) ?? currentPath)
    do {
        try comparison.write(to: output, baselineName: baselinePath, currentName: currentPath)
        try EvalRun.appendStepSummary(from: output, file: RunDirectory.FileName.compareMarkdown, environment: ProcessInfo.processInfo.environment)
    } catch {
        fail("\(error)", status: .infrastructure)
    }
    if !parsed.has(Options.quiet) {
        for line in TerminalSummary(color: Terminal.usesColor).compare(comparison, directory: output) { print(line) }
    }
    return comparison.exitStatus
}

/// `evalbench cache clear`: removes evalbench's stored responses.
func commandCache(_ parsed: ParsedCommand) async -> ExitStatus {
    let cache = ResponseCache(directory: ResponseCache.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    let removed = await cache.clear()
    print("evalbench: removed \(removed) cached responses from \(cache.directory.path)")
    return .success
}
