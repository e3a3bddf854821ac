/// How an evalbench run or command ends, as the process's exit status (DESIGN.md, "Exit
/// codes"). The library decides it (a gate's verdict, a comparison); the command line exits with it.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Done, and every gate held.
    case success = 0
    /// A gate failed: a case did not pass under the default gate, a pass rate fell below its
    /// minimum, or the run regressed significantly against its baseline.
    case gateFailed = 1
    /// Bad usage: an argument, a suite or the config is wrong; nothing was sent.
    case usage = 2
    /// Infrastructure: a backend was unavailable, errors went over the error budget, or a
    /// result or report could not be written.
    case infrastructure = 3
    /// Interrupted by Ctrl-C (128 + SIGINT), after writing every finished result and the reports.
    case interrupted = 130

    /// What the status means, in a few words, for the help page.
    public var meaning: String {
        switch self {
        case .success: "success, and every gate held"
        case .gateFailed: "a gate failed, or a significant regression against the baseline"
        case .usage: "usage, suite or config error; nothing was sent"
        case .infrastructure: "infrastructure: a backend down, errors over budget, a file not written"
        case .interrupted: "interrupted; finished results and reports kept"
        }
    }
}

extension ExitStatus {
    /// The word the terminal and the reports give a verdict with this status.
    package var verdictWord: String {
        switch self {
        case .success: "PASS"
        case .gateFailed: "FAIL"
        case .interrupted: "INTERRUPTED"
        case .usage, .infrastructure: "ERROR"
        }
    }
}
