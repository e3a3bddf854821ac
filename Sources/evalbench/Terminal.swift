import EvalBench
import EvalBenchCommandLine
import Foundation

/// Loopback `http://` over plain sockets, the rest through URLSession;
/// `EVALBENCH_HTTP_CLIENT=urlsession` sends everything through URLSession.
func makeTransport() -> any HTTPStreaming {
    DefaultStreamTransport(socketsForLoopback: ProcessInfo.processInfo.environment["EVALBENCH_HTTP_CLIENT"] != "urlsession")
}

/// What the terminal on stdout can show.
enum Terminal {
    /// ANSI colour on a terminal, unless `NO_COLOR` is set (no-color.org) or `TERM` is `dumb`.
    static var usesColor: Bool {
        let environment = ProcessInfo.processInfo.environment
        return isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }
}

/// The end of a run (or a merge) on stdout: headline, failures, the comparison with the
/// baseline when there is one, the verdict and the report paths.
func printSummary(_ results: some Collection<RequestResult>, verdict: Gate.Verdict, directory: URL, comparison: Comparison?,
                  baseline: String?) {
    let compared = comparison.map { comparison in
        "compared with \(baseline ?? "the baseline"): \(comparison.verdict); see \(RunDirectory(directory).compareMarkdown.path)"
    }
    let lines = TerminalSummary(color: Terminal.usesColor).run(results, verdict: verdict, directory: directory, comparison: compared)
    for line in lines { print(line) }
}

/// One line on stdout at once, also into a pipe (`print` buffers there until exit).
@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// `evalbench: message` on stderr, then exits with `status`.
func fail(_ message: String, status: ExitStatus) -> Never {
    // A second Ctrl-C is quitting at once and removed the files being written: what failed
    // for that is no failure of the run, and the exit is the interruption's.
    if TemporaryFiles.isQuitting { exit(ExitStatus.interrupted.rawValue) }
    printError("evalbench: \(message)")
    exit(status.rawValue)
}

/// An argument error: `error: …`, the command's usage line and where its help is; exit 2.
func fail(_ error: UsageError) -> Never {
    printError(Commands.tool.errorText(error))
    exit(ExitStatus.usage.rawValue)
}

/// A suite, config or run directory that could not be read: every diagnostic, then the
/// count; exit 2.
func failLoading(_ error: any Error, outcome: String = "nothing was sent") -> Never {
    switch error {
    case let error as LoadError:
        printError(error.description)
        let count = error.diagnostics.count
        fail("\(count) problem\(count == 1 ? "" : "s") found; \(outcome)", status: .usage)
    case let diagnostic as Diagnostic:
        printError(diagnostic.description)
        fail("1 problem found; \(outcome)", status: .usage)
    default:
        fail("\(error)", status: .usage)
    }
}
