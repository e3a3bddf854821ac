import Foundation

/// The checks that decide a run's exit status (DESIGN.md, "Exit codes").
public struct Gate: Sendable, Equatable {
    /// Fail unless the pass rate of every backend × level × variant reaches this; when nil,
    /// a suite's own `gates.minPassRate` applies to it, else the default gate: every case passes.
    public var minPassRate: Double?
    /// `--max-error-rate`: the most errored requests / requests over the whole run; above it the
    /// run exits 3. When nil, a suite's own `gates.maxErrorRate` applies to its requests.
    public var maxErrorRate: Double?
    /// Whether "every case passes" applies where no pass-rate gate is set. `run --baseline`
    /// turns it off: there the comparison with the baseline is the gate, so a case that also
    /// failed in the baseline does not fail the build.
    public var everyCaseMustPassByDefault: Bool
    /// `--allow-empty`: a run in which no case ran (none recorded, or every one skipped)
    /// passes. Without it such a run fails the gate: CI must never go green on nothing.
    public var allowsEmptyRun: Bool

    /// A gate; by default no pass-rate or error-rate limit of its own (suites' `gates` apply),
    /// every case must pass where no pass-rate gate is set, and a run in which no case ran
    /// fails unless `allowsEmptyRun` (`--allow-empty`).
    public init(minPassRate: Double? = nil, maxErrorRate: Double? = nil, everyCaseMustPassByDefault: Bool = true,
                allowsEmptyRun: Bool = false) {
        self.minPassRate = minPassRate
        self.maxErrorRate = maxErrorRate
        self.everyCaseMustPassByDefault = everyCaseMustPassByDefault
        self.allowsEmptyRun = allowsEmptyRun
    }

    /// The verdict on a run's results. `unavailableBackends` fail the run as infrastructure
    /// (exit 3); `unavailableHere` (backend → reason) cannot run on this platform: their
    /// skipped case runs are noted and leave the gate to the other backends, unless nothing ran.
    /// `suiteGates` (suite name → its `gates`) apply where the command line sets no flag.
    public func evaluate(_ results: [RequestResult], unavailableBackends: [String],
                         unavailableHere: [String: String] = [:],
                         suiteGates: [String: SuiteGates] = [:]) -> Verdict {
        evaluate(results[...], unavailableBackends: unavailableBackends, unavailableHere: unavailableHere, suiteGates: suiteGates)
    }

    /// `evaluate` over any collection of results, such as the `ResultTable` a run keeps: read
    /// one result at a time, never copied into an array.
    package func evaluate(_ results: some Collection<RequestResult>, unavailableBackends: [String],
                          unavailableHere: [String: String] = [:],
                          suiteGates: [String: SuiteGates] = [:]) -> Verdict {
        var notes = unavailableHere.keys.sorted().map { "backend '\($0)' cannot run here, its case runs are skipped: \(unavailableHere[$0]!)" }
        for reason in results.compactMap(\.skipReason) where FailFast.stopped(reason) && !notes.contains(reason) {
            notes.append(reason)
        }
        if !unavailableBackends.isEmpty {
            return Verdict(exitStatus: .infrastructure, reasons: unavailableBackends.map { "backend '\($0)' is unavailable" }, notes: notes)
        }
        let aggregate = RunAggregate(results)
        if !unavailableHere.isEmpty, !aggregate.caseRuns.isEmpty, aggregate.caseRuns.allSatisfy({ $0.status == .skipped }) {
            return Verdict(exitStatus: .infrastructure, reasons: ["no case ran: every selected backend was skipped, and \(unavailableHere.keys.sorted().joined(separator: ", ")) cannot run here"],
                           notes: notes)
        }
        if !allowsEmptyRun, !aggregate.caseRuns.contains(where: { $0.status != .skipped }) {
            let skipped = aggregate.caseRuns.count
            return Verdict(exitStatus: .gateFailed,
                           reasons: ["no case ran: " + (skipped == 0 ? "no result was recorded" : "all \(skipped) case runs were skipped")
                                     + "; pass --allow-empty if that is expected"],
                           notes: notes)
        }
        let unreachable = unreachableBackendReasons(results)
        if !unreachable.isEmpty {
            return Verdict(exitStatus: .infrastructure, reasons: unreachable, notes: notes)
        }
        let errorBudget = errorBudgetReasons(results, suiteGates: suiteGates)
        if !errorBudget.isEmpty {
            return Verdict(exitStatus: .infrastructure, reasons: errorBudget, notes: notes)
        }
        // Only a pass-rate gate above 0 can be passed on part of the plan: under the default gate
        // the failures that stopped the backend fail the run already, and `--min-pass-rate 0`
        // (a shard that leaves the gates to its merge) asks for no gate at all.
        let passRateGated = minPassRate.map { $0 > 0 } ?? suiteGates.values.contains { ($0.minPassRate ?? 0) > 0 }
        let stopped = passRateGated ? failFastReasons(results) : (reasons: [], infrastructure: false)
        if !stopped.reasons.isEmpty {
            return Verdict(exitStatus: stopped.infrastructure ? .infrastructure : .gateFailed, reasons: stopped.reasons, notes: notes)
        }
        var reasons: [String] = []
        let suitePassRates = suiteGates.compactMapValues(\.minPassRate)
        if minPassRate != nil || suitePassRates.isEmpty {
            reasons = passRateReasons(aggregate, minPassRate: minPassRate, source: "--min-pass-rate")
        } else {
            var suites: [String] = []
            for caseRun in aggregate.caseRuns where !suites.contains(caseRun.suite) { suites.append(caseRun.suite) }
            for suite in suites {
                let own = RunAggregate(results.lazy.filter { $0.suite == suite })
                reasons += passRateReasons(own, minPassRate: suitePassRates[suite],
                                           source: "suite '\(suite)' gates.minPassRate", prefix: "\(suite): ")
            }
        }
        return Verdict(exitStatus: reasons.isEmpty ? .success : .gateFailed, reasons: reasons, notes: notes)
    }

    private func passRateReasons(_ aggregate: RunAggregate, minPassRate: Double?, source: String,
                                 prefix: String = "") -> [String] {
        guard let minPassRate else {
            guard everyCaseMustPassByDefault else { return [] }
            let failing = aggregate.caseRuns.filter { $0.status == .fail || $0.status == .error }
            guard let first = failing.first else { return [] }
            return ["\(prefix)\(failing.count) case run(s) did not pass (default gate: every case passes); first: \(first.key)"]
        }
        return aggregate.groups.compactMap { group in
            let rate = group.passRate ?? 1
            guard rate < minPassRate else { return nil }
            return "\(prefix)\(group.group.label): pass rate \(Self.percent(rate)) is below \(source) \(Self.percent(minPassRate))"
        }
    }

    /// The error kinds that say the backend could not be reached or used at all, rather than
    /// that the model answered badly: when every request of a backend failed with one of these,
    /// nothing was answered (rate limits and quotas that outlasted the retries, a server that
    /// answered 5xx, a 400, 404 or redirect, or a page that is not the API). What the model did
    /// (a refusal, a guardrail, a prompt over its context, an answer that could not be decoded)
    /// is a result, and not one of these.
    package static let infrastructureKinds: Set<ErrorKind> = [
        .network, .unavailable, .auth, .timeout, .rateLimited, .quotaExhausted, .overloaded, .server, .badRequest,
    ]

    /// One reason per backend that fail fast stopped: its case runs not sent are not in its
    /// pass rate, which then covers only the part of the plan sent before the failures (4 of
    /// 9 passing read as 4 of 6), so the gate cannot pass on it. Infrastructure (exit 3) when
    /// every backend stopped on an infrastructure error (a 400, a 401), else a failed gate (the
    /// model's own identical failures).
    private func failFastReasons(_ results: some Collection<RequestResult>) -> (reasons: [String], infrastructure: Bool) {
        var order: [String] = []
        var notSent: [String: Set<String>] = [:]
        var stoppedBy: [String: ErrorKind] = [:]
        for result in results {
            guard result.status == .skipped, let reason = result.skipReason, FailFast.stopped(reason) else { continue }
            if notSent[result.backend] == nil {
                order.append(result.backend)
                stoppedBy[result.backend] = FailFast.stoppingKind(reason, backend: result.backend)
            }
            // Case runs, not turns: a case run's skipped turns are one case run not sent.
            notSent[result.backend, default: []].insert(result.key)
        }
        let reasons = order.map { backend in
            "backend '\(backend)' was stopped by fail fast: \(notSent[backend]?.count ?? 0) of its case runs were not sent, "
                + "so its pass rate would cover only the part of the plan sent before (see the note)"
        }
        let infrastructure = order.allSatisfy { stoppedBy[$0].map(Self.infrastructureKinds.contains) == true }
        return (reasons, infrastructure)
    }

    /// One reason per backend whose every request that ran failed with an infrastructure kind
    /// (a closed port, a wrong key): its pass rate says nothing about the model, so the run
    /// exits 3, naming the backend and its first error.
    private func unreachableBackendReasons(_ results: some Collection<RequestResult>) -> [String] {
        // Per backend, in order of first appearance: its first request that ran, how many ran,
        // and whether every one failed with an infrastructure kind.
        var order: [String] = []
        var byBackend: [String: (first: RequestResult, count: Int, allInfrastructure: Bool)] = [:]
        for result in results where result.status != .skipped {
            let infrastructure = result.status == .error && result.errorKind.map(Self.infrastructureKinds.contains) == true
            if let seen = byBackend[result.backend] {
                // The first in plan order, not in the order the requests finished: the same run says the same.
                let first = Self.planOrder(result, before: seen.first) ? result : seen.first
                byBackend[result.backend] = (first, seen.count + 1, seen.allInfrastructure && infrastructure)
            } else {
                order.append(result.backend)
                byBackend[result.backend] = (result, 1, infrastructure)
            }
        }
        return order.compactMap { backend in
            guard let ran = byBackend[backend], ran.allInfrastructure else { return nil }
            let kind = ran.first.errorKind?.rawValue ?? "error"
            return "backend '\(backend)' could not be used: all \(ran.count) of its requests failed (first: \(kind)"
                + (ran.first.errorMessage.map { ": \($0)" } ?? "") + ")"
        }
    }

    /// Whether `result` comes before `other` in plan order (by plan index, then turn; results
    /// without a plan index, from files before it, keep the order they came in).
    private static func planOrder(_ result: RequestResult, before other: RequestResult) -> Bool {
        guard let index = result.planIndex, let otherIndex = other.planIndex else { return false }
        return (index, result.turn) < (otherIndex, other.turn)
    }

    /// Errored requests / requests that ran (skipped ones left out), over the run for
    /// `--max-error-rate`, else per suite for each suite's `gates.maxErrorRate`.
    private func errorBudgetReasons(_ results: some Collection<RequestResult>, suiteGates: [String: SuiteGates]) -> [String] {
        func check(_ subset: some Sequence<RequestResult>, limit: Double, scope: String, source: String) -> String? {
            var ran = 0, errors = 0
            for result in subset where result.status != .skipped {
                ran += 1
                if result.status == .error { errors += 1 }
            }
            guard ran > 0 else { return nil }
            let rate = Double(errors) / Double(ran)
            guard rate > limit else { return nil }
            return "\(scope): error rate \(Self.percent(rate)) (\(errors) of \(ran) requests) is over \(source) \(Self.percent(limit))"
        }
        if let maxErrorRate {
            return check(results, limit: maxErrorRate, scope: "the run", source: "--max-error-rate").map { [$0] } ?? []
        }
        return suiteGates.keys.sorted().compactMap { suite in
            guard let limit = suiteGates[suite]?.maxErrorRate else { return nil }
            return check(results.lazy.filter { $0.suite == suite }, limit: limit, scope: "suite '\(suite)'",
                         source: "its gates.maxErrorRate")
        }
    }

    /// A run's exit status, and why.
    public struct Verdict: Sendable, Equatable {
        /// Success, a failed gate, or infrastructure.
        public var exitStatus: ExitStatus
        /// Why the gate failed; empty when it held.
        public var reasons: [String]
        /// What a reader should know that did not decide the exit code (backends that cannot
        /// run on this platform).
        public var notes: [String] = []
    }

    static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value * 100)
    }
}
