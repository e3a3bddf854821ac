import Foundation

/// The cross-checks of a run's suites against its config and selection, made before anything
/// is sent: distinct suite names, the backends that turns switch to and that judge or similar
/// assertions call, and the `--variant` names. Collects every problem rather than the first.
struct PlanValidation {
    let suites: [Suite]
    let config: Config
    /// The backends the selection names.
    let selected: [String]
    private(set) var diagnostics: [Diagnostic] = []
    /// Backends a turn switches to, or a model-graded assertion calls, that `selected` does not name.
    private(set) var extraBackends: [String] = []

    private var configured: [String] { config.backends.map(\.name) }

    init(suites: [Suite], config: Config, selected: [String]) {
        self.suites = suites
        self.config = config
        self.selected = selected
    }

    /// Runs every check on `request`'s selection.
    mutating func check(_ request: RunRequest) {
        checkDistinctSuiteNames()
        for suite in suites {
            for (caseIndex, evalCase) in suite.cases.enumerated() {
                for (turnIndex, turn) in evalCase.turns.enumerated() {
                    checkGraders(of: turn, in: suite, caseIndex: caseIndex)
                    checkSwitch(of: turn, in: suite, evalCase: evalCase, caseIndex: caseIndex, turnIndex: turnIndex)
                }
            }
        }
        // Only the backends that turns switch to and graders call, beyond the selection (which
        // the loader checked): an empty list would select every configured backend.
        if !extraBackends.isEmpty {
            diagnostics += ConfigLoader.checkSelection(config, backends: extraBackends, environment: request.environment,
                                                       checkingSecrets: request.checkSecrets)
                .filter { !$0.message.hasPrefix("no backend named") }
        }
        checkVariants(request)
        checkLimits(request)
    }

    /// `--repeat` and `--concurrency` within `RunLimits`: the command line has no line and
    /// column, so the message names the option.
    private mutating func checkLimits(_ request: RunRequest) {
        // These come from the command line (or a library caller's request), not from a suite.
        let file = "command line"
        if let count = request.repeatCount, count > RunLimits.maxRepeat {
            diagnostics.append(Diagnostic(file: file, message: "--repeat \(count) is above the largest evalbench accepts, \(RunLimits.maxRepeat)",
                                          fix: "use --repeat \(RunLimits.maxRepeat) or fewer"))
        }
        if let count = request.concurrency, count > RunLimits.maxConcurrency {
            diagnostics.append(Diagnostic(file: file, message: "--concurrency \(count) is above the largest evalbench accepts, \(RunLimits.maxConcurrency)",
                                          fix: "use --concurrency \(RunLimits.maxConcurrency) or fewer"))
        }
    }

    private mutating func checkDistinctSuiteNames() {
        let names = suites.map(\.name)
        for (index, name) in names.enumerated() where names[..<index].contains(name) {
            diagnostics.append(Diagnostic(file: suites[index].file, path: "$.suite",
                                          message: "two suites are both named '\(name)'",
                                          fix: "give each suite a distinct \"suite\" name; result keys start with it"))
        }
    }

    /// The backends a judge or similar assertion of `turn` calls.
    private mutating func checkGraders(of turn: Turn, in suite: Suite, caseIndex: Int) {
        for assertion in turn.expect {
            let grader: ModelGrader
            switch assertion.check {
            case let .judge(model, _, _), let .similar(model, _, _): grader = model
            default: continue
            }
            guard configured.contains(grader.backend) else {
                diagnostics.append(Diagnostic(file: suite.file, location: grader.location,
                                              path: grader.path ?? "$.cases[\(caseIndex)]",
                                              message: "the \(assertion.type) assertion names backend '\(grader.backend)', which the config does not define\(hint(for: grader.backend))",
                                              fix: "configured backends: \(configured.joined(separator: ", "))"))
                continue
            }
            addExtra(grader.backend)
        }
    }

    /// The backend `turn` switches to, if it switches.
    private mutating func checkSwitch(of turn: Turn, in suite: Suite, evalCase: EvalCase, caseIndex: Int, turnIndex: Int) {
        guard let name = turn.switchTo?.backend else { return }
        guard configured.contains(name) else {
            diagnostics.append(Diagnostic(file: suite.file, location: turn.switchTo?.backendLocation,
                                          path: "$.cases[\(caseIndex)].turns[\(turnIndex)].backend",
                                          message: "turn \(turnIndex + 1) of case '\(evalCase.id)' switches to backend '\(name)', which the config does not define\(hint(for: name))",
                                          fix: "configured backends: \(configured.joined(separator: ", "))"))
            return
        }
        addExtra(name)
    }

    private mutating func addExtra(_ name: String) {
        if !selected.contains(name), !extraBackends.contains(name) { extraBackends.append(name) }
    }

    private mutating func checkVariants(_ request: RunRequest) {
        let variantNames = Set(suites.flatMap { $0.variants.isEmpty ? [Planner.defaultVariant] : $0.variants.map(\.name) })
        for name in request.variants where !variantNames.contains(name) {
            let hint = suggestion(for: name, among: variantNames.sorted()).map { "; did you mean '\($0)'?" } ?? ""
            diagnostics.append(Diagnostic(file: request.suitePaths.first ?? "suite", message: "no variant named '\(name)'\(hint)",
                                          fix: "variants: \(variantNames.sorted().joined(separator: ", "))"))
        }
    }

    private func hint(for name: String) -> String {
        suggestion(for: name, among: configured).map { "; did you mean '\($0)'?" } ?? ""
    }
}
