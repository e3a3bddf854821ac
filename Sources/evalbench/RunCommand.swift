import EvalBench
import EvalBenchCommandLine
import Foundation

/// `evalbench run`: loads, runs with progress on stderr, and prints where the results and
/// reports went and why a gate failed.
func commandRun(_ parsed: ParsedCommand) async -> ExitStatus {
    if parsed.has(Options.watch) { return await commandWatch(parsed) }
    let request = parsed.runRequest()
    let loaded: LoadedRun
    do {
        loaded = try EvalRun.load(request)
    } catch {
        failLoading(error)
    }
    warnIfReplacing(out: request.outputDirectory, resume: request.resumeDirectory)
    if let leftOut = loaded.resumed?.leftOutLine {
        // Its names come from the resumed results.jsonl: control characters are shown, not obeyed.
        printError("evalbench: --resume \(TerminalText.safe(request.resumeDirectory ?? "")): \(TerminalText.safe(leftOut))")
    }
    let progress = Progress(total: loaded.plan.requestCount, enabled: !parsed.has(Options.noProgress))
    let interrupts = Interrupts()
    interrupts.install()
    let transport = makeTransport()
    let task = Task { () -> Result<RunOutcome, any Error> in
        do {
            return .success(try await EvalRun.execute(
                loaded, request, transport: transport,
                onEvent: { event in if case let .recorded(result) = event { progress.record(result) } },
                onDirectoryReady: { interrupts.watch(runDirectory: $0) }, onBackendsReady: { interrupts.watch($0) }))
        } catch {
            return .failure(error)
        }
    }
    interrupts.watch(task)
    let result = await task.value
    progress.finish()
    switch result {
    case let .success(outcome):
        // An interrupted run says so first, even with --quiet: its figures cover only part of the plan.
        if let interruption = outcome.interruption { print("evalbench: \(interruption.headline)") }
        if !parsed.has(Options.quiet) {
            printSummary(outcome.results, verdict: outcome.verdict, directory: outcome.outputDirectory,
                         comparison: outcome.comparison, baseline: request.baselineDirectory)
        }
        // The verdict the reports and run.json hold: a Ctrl-C that came once every request had
        // finished (while the reports were written) changed nothing the run recorded.
        return outcome.verdict.exitStatus
    case let .failure(error):
        fail("the run stopped: \(error)", status: .infrastructure)
    }
}

/// `evalbench run --watch`: the library's watch loop until Ctrl-C.
func commandWatch(_ parsed: ParsedCommand) async -> ExitStatus {
    let watch = RunWatch(parsed.runRequest(), useCache: !parsed.has(Options.noCache))
    let interrupts = Interrupts()
    interrupts.install()
    let transport = makeTransport()
    let task = Task {
        await watch.run(transport: transport, onDirectoryReady: { interrupts.watch(runDirectory: $0) },
                        onBackendsReady: { interrupts.watch($0) }, say: say)
    }
    interrupts.watch(task)
    await task.value
    return .interrupted
}

/// `--out` naming the directory of an earlier run replaces its results, as a report
/// directory is replaced: said on stderr first, with how to keep them instead.
func warnIfReplacing(out: String?, resume: String?) {
    guard let out, !(resume.map { OutputDirectoryCheck.sameDirectory(out, $0) } ?? false) else { return }
    let results = RunDirectory(path: out).results
    guard let size = (try? FileManager.default.attributesOfItem(atPath: results.path))?[.size] as? Int, size > 0 else { return }
    printError("evalbench: \(out) holds an earlier run; its results.jsonl (\(ByteCount.text(Int64(size)))) and reports are replaced "
               + "(--resume \(out) would keep its finished results, or choose another --out)")
}
