import Foundation

/// The checks a suite built in Swift gets in place of the loader's: what the type system
/// cannot say (a name, at least one case, distinct non-empty ids, turns with prompts that are
/// not empty, nor made empty by a variant, instructions that are not empty, limits in range,
/// regular expressions that compile and cannot take exponential time). A suite file gets these and more from `SuiteLoader`, with
/// line and column.
enum SuiteChecks {
    static func check(_ suite: Suite) throws(LoadError) {
        let file = suite.file.isEmpty ? "suite '\(suite.name)' (built in Swift)" : suite.file
        var diagnostics: [Diagnostic] = []
        func problem(_ path: String, _ message: String, _ fix: String) {
            diagnostics.append(Diagnostic(file: file, path: path, message: message, fix: fix))
        }
        if suite.name.trimmingCharacters(in: .whitespaces).isEmpty {
            problem("$.suite", "the suite has no name", "pass a short name such as \"support\" to Suite(name:)")
        }
        if suite.cases.isEmpty { problem("$.cases", "the suite has no cases", "add at least one EvalCase") }
        if let count = suite.repeatCount, count < 1 {
            problem("$.repeat", "repeat \(count) must be at least 1", "use 1 (one run per case) or more")
        }
        if let target = suite.target, !(0...1).contains(target) {
            problem("$.target", "target \(target) is not a pass rate between 0 and 1", "use e.g. 0.9 for 90%")
        }
        var seen: Set<String> = []
        for (index, evalCase) in suite.cases.enumerated() {
            let path = "$.cases[\(index)]"
            if evalCase.id.isEmpty {
                problem("\(path).id", "case \(index) has an empty id", "give every case a distinct id")
            } else if !seen.insert(evalCase.id).inserted {
                problem("\(path).id", "the case id '\(evalCase.id)' is used twice", "give every case a distinct id")
            }
            if evalCase.turns.isEmpty {
                problem("\(path).turns", "case '\(evalCase.id)' has no turns", "add a Turn(prompt:expect:)")
            }
            for (toolPath, message, fix) in toolProblems(evalCase, path: path) { problem(toolPath, message, fix) }
            for (instructionsPath, message, fix) in instructionsProblems(evalCase, path: path) { problem(instructionsPath, message, fix) }
            for (turnIndex, turn) in evalCase.turns.enumerated() {
                if turn.prompt.isBlank {
                    problem("\(path).turns[\(turnIndex)].prompt", "turn \(turnIndex + 1) of case '\(evalCase.id)' has an empty prompt",
                            "pass Turn(prompt:) the message the model should answer")
                }
                for (assertionIndex, assertion) in turn.expect.enumerated() {
                    if let message = patternProblem(assertion.check) {
                        problem("\(path).turns[\(turnIndex)].expect[\(assertionIndex)]", message,
                                "check its ICU syntax; repeat something that cannot match the same text two ways: (a+)+ is a+")
                    }
                }
            }
        }
        for (index, variant) in suite.variants.enumerated() {
            if let template = variant.promptTemplate, template.isBlank {
                problem("$.variants[\(index)].prompt", "variant '\(variant.name)' has an empty prompt template, so every prompt it wraps is sent empty",
                        "put {{prompt}} where each case's prompt goes, or leave promptTemplate nil")
            }
            if variant.instructions?.isBlank == true {
                problem("$.variants[\(index)].instructions", "variant '\(variant.name)' has instructions that are empty or only whitespace",
                        "pass PromptVariant(instructions:) the text the model should follow, or nil to keep each case's")
            }
        }
        guard diagnostics.isEmpty else { throw LoadError(diagnostics) }
    }

    /// A case's instructions and those its turns switch to, when empty or only whitespace:
    /// Anthropic refuses such a system text.
    private static func instructionsProblems(_ evalCase: EvalCase, path: String) -> [(String, String, String)] {
        var problems: [(String, String, String)] = []
        if evalCase.instructions?.isBlank == true {
            problems.append(("\(path).instructions", "case '\(evalCase.id)' has instructions that are empty or only whitespace",
                             "pass EvalCase(instructions:) the text the model should follow, or nil for none"))
        }
        for (index, turn) in evalCase.turns.enumerated() where turn.switchTo?.instructions?.isBlank == true {
            problems.append(("\(path).turns[\(index)].instructions",
                             "turn \(index + 1) of case '\(evalCase.id)' switches to instructions that are empty or only whitespace",
                             "pass TurnSwitch(instructions:) the text the model should follow, or nil to keep the instructions in force"))
        }
        return problems
    }

    /// A case's tool sets (its own and those its turns switch to): names the providers accept,
    /// used once per set, and a `toolChoice` that names a tool of the case.
    private static func toolProblems(_ evalCase: EvalCase, path: String) -> [(String, String, String)] {
        var problems: [(String, String, String)] = []
        let sets = [(path + ".tools", evalCase.tools)]
            + evalCase.turns.enumerated().compactMap { index, turn in turn.switchTo?.tools.map { ("\(path).turns[\(index)].tools", $0) } }
        for (setPath, tools) in sets {
            var names: Set<String> = []
            for (index, tool) in tools.enumerated() {
                if !ToolSetReader.isToolName(tool.name) {
                    problems.append(("\(setPath)[\(index)].name", "the tool name '\(tool.name)' may contain only letters, digits, '_' and '-' (1 to 64)",
                                     "OpenAI, Anthropic and Gemini require such a name; e.g. \"get_weather\""))
                } else if !names.insert(tool.name).inserted {
                    problems.append(("\(setPath)[\(index)].name", "the tool name '\(tool.name)' is used twice", "give each tool of a set a unique name"))
                }
            }
        }
        let declared = Set(sets.flatMap { $0.1.map(\.name) })
        if case let .tool(name)? = evalCase.options.toolChoice, !declared.contains(name) {
            problems.append(("\(path).options.toolChoice", "toolChoice names the tool '\(name)', which this case does not declare",
                             "use auto, required, none or one of the case's tools"))
        }
        return problems
    }

    /// Why a `regex` or `notRegex` pattern cannot be used, or nil.
    private static func patternProblem(_ check: Assertion.Check) -> String? {
        switch check {
        case let .regex(pattern, ignoreCase), let .notRegex(pattern, ignoreCase):
            guard (try? NSRegularExpression(pattern: pattern, options: ignoreCase ? [.caseInsensitive] : [])) != nil else {
                return "the pattern '\(pattern.prefix(200))' is not a valid regular expression"
            }
            return BoundedRegex.catastrophicShape(in: pattern).map { "the pattern '\(pattern.prefix(200))' can take exponential time: \($0)" }
        default:
            return nil
        }
    }
}
