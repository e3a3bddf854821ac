import Foundation

/// What changed between the run `--resume` continues and the suites and config loaded now.
/// Its run.json holds each suite's digest, each case's and each prompt variant's: a case whose
/// digest differs was changed (its kept verdicts are stale), one no longer in its suite was
/// deleted, one not in the old run was added; a variant whose digest differs changed every case
/// run of it. A backend whose config differs changes every case run on it, and every case run
/// of a case that calls it (a turn that switches to it, a judge or similarity grader).
/// The rest of a suite that a request or its grading depends on (its instructions, options,
/// vars and tools, dataset rows, templates) is in its cases as loaded, and what it holds besides
/// (repeat, reasoning, gates, targets) the plan and the gates read from the suite as it is now.
package struct ResumeCheck: Sendable, Equatable {
    /// `suite/case` of every changed case.
    package var changed: [String] = []
    /// `suite/case` of every case the suite no longer has.
    package var deleted: [String] = []
    /// `suite/case` of every case the old run did not have.
    package var added: [String] = []
    /// `suite/variant` of every prompt variant whose digest differs from the old run's.
    package var changedVariants: [String] = []
    /// `suite/variant` of every variant of the old run that the suite no longer has.
    package var deletedVariants: [String] = []
    /// `suite/variant` of every variant the old run did not have.
    package var addedVariants: [String] = []
    /// Suites whose old run.json records no variant digests (it is older than them) and whose
    /// file changed: nothing says whether a variant did, so every variant of theirs is counted
    /// as changed (and is in `changedVariants`).
    package var suitesWithoutVariantDigests: [String] = []
    /// Backends the run uses (the selected ones, and those a case switches to or grades with)
    /// whose config differs from the old run's.
    package var changedBackends: [String] = []
    /// `suite/case` of every case that switches to, or grades with, a backend whose config
    /// changed: its case runs on every backend are stale.
    package var callingChangedBackends: [String] = []
    /// Backends of the old run that this run does not select: their results would otherwise
    /// be kept beside the new run's, in a run whose run.json no longer names them.
    package var droppedBackends: [String] = []
    /// Suites of the old run that are not loaded now: every result of theirs is stale.
    private var deletedSuites: Set<String> = []
    /// The lists above as sets, for `isStale`, which is asked of every kept result.
    private var staleCases: Set<String> = []
    private var staleVariants: Set<String> = []
    private var staleBackends: Set<String> = []

    /// Nothing changed that would make a kept result stale.
    package var isUnchanged: Bool {
        changed.isEmpty && deleted.isEmpty && changedVariants.isEmpty && deletedVariants.isEmpty
            && changedBackends.isEmpty && droppedBackends.isEmpty
    }

    /// The digest of one case as run.json records it.
    package static func digest(_ evalCase: EvalCase) -> String {
        digest(of: evalCase)
    }

    /// The digest of one prompt variant as run.json records it.
    package static func digest(_ variant: PromptVariant) -> String {
        digest(of: variant)
    }

    private static func digest(of value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map(SHA256.hex) ?? ""
    }

    /// The variants every case of `suite` runs with: its own, else one, `default`, that changes nothing.
    private static func variants(of suite: Suite) -> [PromptVariant] {
        suite.variants.isEmpty ? [PromptVariant(name: Planner.defaultVariant)] : suite.variants
    }

    /// Each variant's digest by name, as run.json records them.
    package static func variantDigests(of suite: Suite) -> [String: String] {
        variants(of: suite).reduce(into: [:]) { $0[$1.name] = digest($1) }
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
            compareVariants(of: suite, with: old)
        }
        // A suite of the old run that is not loaded now was deleted whole: its results would
        // otherwise be kept beside the new suite's, in a run whose run.json no longer names it.
        let loaded = Set(suites.map(\.name))
        for old in metadata.suites where !loaded.contains(old.suite) {
            deletedSuites.insert(old.suite)
            deleted += old.cases.map { $0.keys.sorted().map { "\(old.suite)/\($0)" } } ?? ["\(old.suite)/*"]
        }
        let called = Set(suites.flatMap { $0.cases.flatMap(Self.calledBackends(of:)) })
        // A backend a case switches to or grades with was started, and is in run.json, without
        // being selected: it is dropped only when no case calls it now.
        droppedBackends = metadata.backends.map(\.name).filter { !backends.contains($0) && !called.contains($0) }
        compareBackends(metadata.config, config, selected: backends, suites: suites)
        staleCases = Set(changed + deleted + callingChangedBackends)
        staleVariants = Set(changedVariants + deletedVariants)
        staleBackends = Set(changedBackends + droppedBackends)
    }

    /// Compares `suite`'s variants with the digests `old` recorded. A run.json from before
    /// variant digests has none: if the suite file is as it was, neither are its variants (they
    /// are written in it); if it changed, which variant changed is unknown, so every one did.
    private mutating func compareVariants(of suite: Suite, with old: RunMetadata.SuiteFile) {
        let variants = Self.variants(of: suite)
        guard let oldVariants = old.variants else {
            if old.sha256 != EvalRun.suiteDigest(suite) {
                suitesWithoutVariantDigests.append(suite.name)
                changedVariants += variants.map { "\(suite.name)/\($0.name)" }
            }
            return
        }
        for variant in variants {
            let id = "\(suite.name)/\(variant.name)"
            switch oldVariants[variant.name] {
            case nil: addedVariants.append(id)
            case let digest? where digest != Self.digest(variant): changedVariants.append(id)
            default: break
            }
        }
        let current = Set(variants.map(\.name))
        deletedVariants += oldVariants.keys.filter { !current.contains($0) }.sorted().map { "\(suite.name)/\($0)" }
    }

    /// The backends whose config changed among those the run uses: the `selected` ones, and
    /// those a case of `suites` switches to or grades with, whose cases are then stale too.
    private mutating func compareBackends(_ then: Config, _ now: Config, selected: [String], suites: [Suite]) {
        var callers: [String: [String]] = [:]
        for suite in suites {
            for evalCase in suite.cases {
                for name in Self.calledBackends(of: evalCase) { callers[name, default: []].append("\(suite.name)/\(evalCase.id)") }
            }
        }
        for name in selected + callers.keys.sorted() where !changedBackends.contains(name) {
            if let current = now.backend(named: name), let old = then.backend(named: name), current != old {
                changedBackends.append(name)
                callingChangedBackends += (callers[name] ?? []).filter { !callingChangedBackends.contains($0) }
            }
        }
    }

    /// The backends `evalCase` calls besides the one it runs on: a turn's switch, a judge's or
    /// a similarity grader's.
    private static func calledBackends(of evalCase: EvalCase) -> Set<String> {
        var names: Set<String> = []
        for turn in evalCase.turns {
            if let name = turn.switchTo?.backend { names.insert(name) }
            for assertion in turn.expect {
                switch assertion.check {
                case let .judge(grader, _, _), let .similar(grader, _, _): names.insert(grader.backend)
                default: break
                }
            }
        }
        return names
    }

    /// Whether `result`, kept from the old run, is stale: its case or variant changed or was
    /// deleted, the config of the backend its case run was planned on changed (or that backend
    /// is not selected now), or that of a backend its case calls. Every turn of a case run gets
    /// the same answer: a turn that switched backend is judged by the case run's.
    package func isStale(_ result: RequestResult) -> Bool {
        // Asked of every kept result: when nothing is stale, no string is made.
        guard !(deletedSuites.isEmpty && staleCases.isEmpty && staleVariants.isEmpty && staleBackends.isEmpty) else { return false }
        let backend = PlannedCaseRun.plannedBackendAndLevel(of: result)?.backend ?? result.backend
        return deletedSuites.contains(result.suite) || staleCases.contains("\(result.suite)/\(result.caseID)")
            || staleVariants.contains("\(result.suite)/\(result.variant)") || staleBackends.contains(backend)
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
        if !changedVariants.isEmpty { parts.append("variants changed: \(list(changedVariants))") }
        if !suitesWithoutVariantDigests.isEmpty {
            parts.append("variants unknown: the run.json resumed records no variant digests and the file of \(list(suitesWithoutVariantDigests)) changed, so each of their variants counts as changed")
        }
        if !deletedVariants.isEmpty { parts.append("variants deleted: \(list(deletedVariants))") }
        if !addedVariants.isEmpty { parts.append("variants added: \(list(addedVariants))") }
        if !changedBackends.isEmpty { parts.append("backend config changed: \(list(changedBackends))") }
        if !callingChangedBackends.isEmpty { parts.append("cases that switch to or grade with a changed backend: \(list(callingChangedBackends))") }
        if !droppedBackends.isEmpty { parts.append("backends not selected now: \(list(droppedBackends))") }
        return parts.joined(separator: "; ")
    }
}
