import Foundation

/// What changed between the run `--resume` continues and the suites and config loaded now.
/// Its run.json holds each suite's digest and each case's; a case whose digest differs was
/// changed (its kept verdicts are stale), one no longer in its suite was deleted, one not in
/// the old run was added. A backend whose config differs changes every case run on it.
package struct ResumeCheck: Sendable, Equatable {
    /// `suite/case` of every changed case.
    package var changed: [String] = []
    /// `suite/case` of every case the suite no longer has.
    package var deleted: [String] = []
    /// `suite/case` of every case the old run did not have.
    package var added: [String] = []
    /// Backends whose config differs from the old run's.
    package var changedBackends: [String] = []
    /// Backends of the old run that this run does not select: their results would otherwise
    /// be kept beside the new run's, in a run whose run.json no longer names them.
    package var droppedBackends: [String] = []
    /// Suites of the old run that are not loaded now: every result of theirs is stale.
    private var deletedSuites: Set<String> = []

    /// Nothing changed that would make a kept result stale.
    package var isUnchanged: Bool { changed.isEmpty && deleted.isEmpty && changedBackends.isEmpty && droppedBackends.isEmpty }

    /// The digest of one case as run.json records it.
    package static func digest(_ evalCase: EvalCase) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(evalCase)).map(SHA256.hex) ?? ""
    }

    /// Compares the old run's `metadata` with `suites` and `config` as loaded now.
    package init(_ metadata: RunMetadata, suites: [Suite], config: Config, backends: [String]) {
        for suite in suites {
            let ids = suite.cases.map { "\(suite.name)/\($0.id)" }
            guard let old = metadata.suites.first(where: { $0.suite == suite.name }) else {
                added += ids
                continue
            }
            // Case digests first: a dataset's rows are cases, and a changed dataset leaves the
            // suite file's own digest as it was. A run.json from before case digests has only
            // that digest; if it differs, which case changed is unknown, so every one did.
            guard let oldCases = old.cases else {
                if old.sha256 != EvalRun.suiteDigest(suite) { changed += ids }
                continue
            }
            for evalCase in suite.cases {
                let id = "\(suite.name)/\(evalCase.id)"
                switch oldCases[evalCase.id] {
                case nil: added.append(id)
                case let digest? where digest != Self.digest(evalCase): changed.append(id)
                default: break
                }
            }
            let current = Set(suite.cases.map(\.id))
            deleted += oldCases.keys.filter { !current.contains($0) }.sorted().map { "\(suite.name)/\($0)" }
        }
        // A suite of the old run that is not loaded now was deleted whole: its results would
        // otherwise be kept beside the new suite's, in a run whose run.json no longer names it.
        let loaded = Set(suites.map(\.name))
        for old in metadata.suites where !loaded.contains(old.suite) {
            deletedSuites.insert(old.suite)
            deleted += old.cases.map { $0.keys.sorted().map { "\(old.suite)/\($0)" } } ?? ["\(old.suite)/*"]
        }
        droppedBackends = metadata.backends.map(\.name).filter { !backends.contains($0) }
        for name in backends {
            if let now = config.backend(named: name), let then = metadata.config.backend(named: name), now != then {
                changedBackends.append(name)
            }
        }
    }

    /// Whether `result`, kept from the old run, is stale: its case changed or was deleted, or
    /// its backend's config changed.
    package func isStale(_ result: RequestResult) -> Bool {
        let id = "\(result.suite)/\(result.caseID)"
        return deletedSuites.contains(result.suite) || changed.contains(id) || deleted.contains(id)
            || changedBackends.contains(result.backend) || droppedBackends.contains(result.backend)
    }

    /// `changed: a, b; deleted: c; added: d; backend config changed: x`.
    package var summary: String {
        var parts: [String] = []
        func list(_ items: [String]) -> String {
            items.count <= 10 ? items.joined(separator: ", ") : items.prefix(10).joined(separator: ", ") + " and \(items.count - 10) more"
        }
        if !changed.isEmpty { parts.append("changed: \(list(changed))") }
        if !deleted.isEmpty { parts.append("deleted: \(list(deleted))") }
        if !added.isEmpty { parts.append("added: \(list(added))") }
        if !changedBackends.isEmpty { parts.append("backend config changed: \(list(changedBackends))") }
        if !droppedBackends.isEmpty { parts.append("backends not selected now: \(list(droppedBackends))") }
        return parts.joined(separator: "; ")
    }
}
