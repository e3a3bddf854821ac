import Foundation

/// Polls files for changes by modification date and size: `evalbench run --watch` re-runs
/// when a suite, its dataset or the config changes. A test drives it by calling `changes()`.
package struct FileWatcher: Sendable {
    package var paths: [String]
    private var stamps: [String: String]

    package init(paths: [String]) {
        self.paths = paths
        stamps = Self.stamps(of: paths)
    }

    /// The paths that changed (or appeared, or went) since the last call, and remembers now.
    package mutating func changes() -> [String] {
        let now = Self.stamps(of: paths)
        let changed = paths.filter { now[$0] != stamps[$0] }
        stamps = now
        return changed
    }

    private static func stamps(of paths: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for path in paths {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
            let date = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            // The content's hash too: two saves within one second keep the same date.
            let digest = FileManager.default.contents(atPath: path).map(SHA256.hex) ?? ""
            result[path] = "\(date) \(size) \(digest)"
        }
        return result
    }
}

/// What changed between two iterations of a watched run, for the terminal.
package enum WatchDiff {
    /// One line per request whose verdict flipped, plus token and latency changes overall.
    package static func lines(previous: [RequestResult], current: [RequestResult]) -> [String] {
        let before = Dictionary(previous.map { ("\($0.key)#\($0.turn)", $0) }, uniquingKeysWith: { _, last in last })
        var lines: [String] = []
        var sent = 0
        for result in current.sorted(by: { ($0.key, $0.turn) < ($1.key, $1.turn) }) {
            if result.cached != true, result.status == .pass || result.status == .fail || result.status == .error { sent += 1 }
            guard let old = before["\(result.key)#\(result.turn)"] else {
                lines.append("new   \(result.key) turn \(result.turn): \(result.status.rawValue)")
                continue
            }
            if old.status != result.status {
                lines.append("flip  \(result.key) turn \(result.turn): \(old.status.rawValue) → \(result.status.rawValue)")
            }
        }
        func total(_ results: [RequestResult], _ figure: (Usage) -> Int?) -> Int {
            results.compactMap { figure($0.usage) }.reduce(0, +)
        }
        let inputBefore = total(previous) { $0.inputTokens }, inputNow = total(current) { $0.inputTokens }
        let outputBefore = total(previous) { $0.outputTokens }, outputNow = total(current) { $0.outputTokens }
        lines.append("tokens: input \(inputBefore) → \(inputNow) (\(signed(inputNow - inputBefore))), output \(outputBefore) → \(outputNow) (\(signed(outputNow - outputBefore)))")
        let fresh = current.filter { $0.cached != true }.compactMap { $0.timing?.latencyMs }.sorted()
        if let median = percentile(50, of: fresh) {
            lines.append("requests sent: \(sent), latency p50 of the new answers \(String(format: "%.1f", median)) ms")
        } else {
            lines.append("requests sent: \(sent) (every answer came from the cache)")
        }
        if !lines.contains(where: { $0.hasPrefix("flip") || $0.hasPrefix("new") }) { lines.insert("no verdict changed", at: 0) }
        return lines
    }

    private static func signed(_ value: Int) -> String { value >= 0 ? "+\(value)" : "\(value)" }
}

/// `evalbench run --watch`: runs, then runs again whenever a suite, its dataset or the config
/// changes, until the task running it is cancelled. The response cache is on, so only changed
/// requests reach a model; each iteration rewrites the report and says what flipped since
/// the previous one.
package struct RunWatch: Sendable {
    /// What each iteration runs.
    package var request: RunRequest
    /// Seconds between two looks at the watched files.
    package var pollInterval: Double

    /// A watch of `request`: with the response cache unless `useCache` is false or `request`
    /// names a cache, and into `reports/<suites>-watch` unless `request` names a directory.
    package init(_ request: RunRequest, useCache: Bool, pollInterval: Double = 0.5) {
        var request = request
        if useCache, request.cacheDirectory == nil {
            request.cacheDirectory = ResponseCache.defaultDirectory(environment: request.environment)
        }
        if request.outputDirectory == nil {
            let name = request.suitePaths.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
                .joined(separator: "+")
            request.outputDirectory = "reports/\(name)-watch"
        }
        self.request = request
        self.pollInterval = pollInterval
    }

    /// Runs and watches until cancelled; each line for the terminal goes to `say` as it happens.
    package func run(transport: any HTTPStreaming, onDirectoryReady: @escaping @Sendable (URL) -> Void = { _ in },
                    onBackendsReady: @escaping @Sendable ([any Backend]) -> Void = { _ in }, say: (String) -> Void) async {
        var previous: [RequestResult]?
        var iteration = 0
        while !Task.isCancelled {
            iteration += 1
            let watched = await runOnce(iteration, previous: &previous, transport: transport,
                                        onDirectoryReady: onDirectoryReady, onBackendsReady: onBackendsReady, say: say)
            var watcher = FileWatcher(paths: Array(Set(watched)).sorted())
            say("evalbench: watching \(watcher.paths.joined(separator: ", ")) (Ctrl-C stops)")
            var changed: [String] = []
            while changed.isEmpty, !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(pollInterval * 1_000_000_000))
                changed = watcher.changes()
            }
            if !changed.isEmpty { say("evalbench: changed: \(changed.joined(separator: ", "))") }
        }
    }

    /// One iteration: loads, runs and reports what changed since `previous`; returns the
    /// files to watch (the suites, their datasets, the config).
    private func runOnce(_ iteration: Int, previous: inout [RequestResult]?, transport: any HTTPStreaming,
                         onDirectoryReady: @escaping @Sendable (URL) -> Void,
                         onBackendsReady: @escaping @Sendable ([any Backend]) -> Void, say: (String) -> Void) async -> [String] {
        var watched = request.suitePaths + [request.configPath ?? "evalbench.json"]
        let loaded: LoadedRun
        do {
            loaded = try EvalRun.load(request)
        } catch let error as LoadError {
            for diagnostic in error.diagnostics { say(diagnostic.description) }
            say("evalbench: fix the problems above; watching for changes")
            return watched
        } catch {
            say("evalbench: \(Self.printable(error))")
            return watched
        }
        watched += loaded.suites.compactMap(\.datasetFile)
        do {
            let outcome = try await EvalRun.execute(loaded, request, transport: transport, onDirectoryReady: onDirectoryReady,
                                                    onBackendsReady: onBackendsReady)
            say("evalbench: watch iteration \(iteration): \(outcome.results.count) results; report \(RunDirectory(outcome.outputDirectory).summaryMarkdown.path)")
            let current = Array(outcome.results)
            if let previous {
                for line in WatchDiff.lines(previous: previous, current: current) { say("  \(TerminalText.safe(line))") }
            }
            previous = current
        } catch {
            say("evalbench: watch iteration \(iteration) stopped: \(Self.printable(error))")
        }
        return watched
    }

    /// An error as the watch loop prints it: diagnostics escape what came from a file already
    /// (and keep their fix on its own line); anything else is escaped here.
    static func printable(_ error: any Error) -> String {
        switch error {
        case let error as LoadError: error.description
        case let diagnostic as Diagnostic: diagnostic.description
        default: TerminalText.safe("\(error)")
        }
    }
}
