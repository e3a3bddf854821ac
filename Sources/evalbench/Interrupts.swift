import EvalBench
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cancels the run on the first Ctrl-C (finished results and reports are kept) and stops
/// what the backends started and exits on the second.
final class Interrupts: @unchecked Sendable {
    // @unchecked: `cancel`, `backends`, `runDirectory` and `count` are only touched on `queue`.
    private let queue = DispatchQueue(label: "evalbench.signals")
    private var sources: [DispatchSourceSignal] = []
    private var cancel: (@Sendable () -> Void)?
    private var backends: [any Backend] = []
    private var runDirectory: URL?
    private var count = 0

    func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            // Signals that came before the handler ran are one event: `data` counts them. (The
            // source holds its handler and the handler the source: both last as long as the process.)
            source.setEventHandler { [weak self, source] in self?.fire(times: Int(source.data)) }
            source.resume()
            sources.append(source)
        }
    }

    /// The task the first Ctrl-C cancels.
    func watch<Success: Sendable>(_ task: Task<Success, Never>) { queue.sync { cancel = { task.cancel() } } }
    /// The backends the second Ctrl-C stops at once.
    func watch(_ backends: [any Backend]) { queue.sync { self.backends = backends } }
    /// The directory whose reports the second Ctrl-C says how to write again.
    func watch(runDirectory: URL) { queue.sync { self.runDirectory = runDirectory } }

    private func fire(times: Int) {
        count += max(1, times)
        if count == 1 {
            printError("\nevalbench: interrupted; stopping, keeping finished results (Ctrl-C again to quit at once)")
            cancel?()
        } else {
            for backend in backends { backend.terminateImmediately() }
            // Reports half written are not left as hidden temporary files beside the finished ones.
            TemporaryFiles.removeAll()
            printError(Self.quitMessage(runDirectory: runDirectory))
            exit(ExitStatus.interrupted.rawValue)
        }
    }

    /// What the second Ctrl-C says: where the finished results are and how to write the reports
    /// again. Before the run has a directory, nothing of it was written.
    private static func quitMessage(runDirectory: URL?) -> String {
        guard let runDirectory else { return "evalbench: quit at once, before the run wrote anything" }
        return "evalbench: quit at once; every finished result is in results.jsonl, but the reports may be missing or "
            + "from before: `evalbench report \(TerminalText.safe(TerminalText.shellWord(runDirectory.path)))` writes them again"
    }
}
