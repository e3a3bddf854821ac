import EvalBench
import EvalBenchCommandLine
import Foundation

/// `evalbench merge DIR... --out DIR`: combines the shards of a run into one run's reports,
/// gated as one run; exits as `run` would have.
func commandMerge(_ parsed: ParsedCommand) -> ExitStatus {
    var request = MergeRequest(partDirectories: parsed.arguments, outputDirectory: parsed.value(Options.mergeOut) ?? "merged")
    request.allowPartial = parsed.has(Options.allowPartial)
    request.gate = Gate(minPassRate: parsed.value(Options.minPassRate).flatMap(Values.fraction),
                        maxErrorRate: parsed.value(Options.maxErrorRate).flatMap(Values.fraction),
                        allowsEmptyRun: parsed.has(Options.allowEmpty))
    request.target = parsed.target()
    request.baselineDirectory = parsed.value(Options.baseline)
    request.comparisonThresholds = parsed.comparisonThresholds()
    request.arguments = Array(CommandLine.arguments.dropFirst())
    let outcome: MergeOutcome
    do {
        outcome = try RunMerge.execute(request)
    } catch let error as LoadError {
        printError(error.description)
        let count = error.diagnostics.count
        fail("\(count) problem\(count == 1 ? "" : "s") found; nothing was merged", status: .usage)
    } catch {
        fail("the merge stopped: \(error)", status: .infrastructure)
    }
    for missing in outcome.missing { printError("evalbench: --allow-partial: \(missing)") }
    // As run does, even with --quiet: the figures cover only part of the plan.
    if let interruption = outcome.interruption { print("evalbench: \(interruption.headline)") }
    if !parsed.has(Options.quiet) {
        printSummary(outcome.results, verdict: outcome.verdict, directory: outcome.outputDirectory,
                     comparison: outcome.comparison, baseline: request.baselineDirectory)
    }
    return outcome.verdict.exitStatus
}
