import EvalBench

/// A command line, parsed: the command, its positional arguments and its options.
struct Arguments {
    var command: String
    var positional: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Options that take a value, per command.
    static let valueOptions: [String: Set<String>] = [
        "run": ["--config", "--backend", "--reasoning", "--repeat", "--concurrency", "--out", "--resume",
                "--case", "--tag", "--min-pass-rate", "--variant",
                "--max-error-rate", "--target", "--baseline", "--max-pass-rate-drop", "--max-latency-increase", "--alpha"],
        "validate": ["--config", "--backend"],
        "plan": ["--config", "--backend", "--reasoning", "--repeat", "--case", "--tag", "--variant"],
        "backends": ["--config"],
        "report": ["--target"],
        "cache": [],
        "compare": ["--out", "--max-pass-rate-drop", "--max-latency-increase", "--alpha"],
    ]
    static let flagOptions: [String: Set<String>] = [
        "run": ["--no-progress", "--cache", "--no-cache", "--watch"],
        "validate": [], "plan": [], "backends": ["--no-start"], "report": [], "cache": [], "compare": [],
    ]

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ argv: [String]) throws -> Arguments {
        guard let command = argv.first else { throw UsageError(description: "no command given") }
        guard let valueOptions = valueOptions[command], let flagOptions = flagOptions[command] else {
            let known = valueOptions.keys.sorted()
            var message = "unknown command '\(command)'"
            if let guess = suggestion(for: command, among: known) { message += "; did you mean '\(guess)'?" }
            throw UsageError(description: message)
        }
        var parsed = Arguments(command: command)
        var index = 1
        while index < argv.count {
            var argument = argv[index]
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            if valueOptions.contains(argument) {
                guard let value = inlineValue ?? (index + 1 < argv.count ? argv[index + 1] : nil) else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                if inlineValue == nil { index += 1 }
                parsed.values[argument, default: []].append(value)
            } else if flagOptions.contains(argument) {
                parsed.flags.insert(argument)
            } else if argument.hasPrefix("-") && argument != "-" {
                var message = "unknown option '\(argument)' for '\(command)'"
                if let guess = suggestion(for: argument, among: Array(valueOptions.union(flagOptions))) {
                    message += "; did you mean '\(guess)'?"
                }
                throw UsageError(description: message)
            } else {
                parsed.positional.append(argument)
            }
            index += 1
        }
        return parsed
    }

    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option; comma-separated lists are split.
    func list(_ name: String) -> [String] {
        (values[name] ?? []).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
    }

    func int(_ name: String, minimum: Int) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), number >= minimum else {
            throw UsageError(description: "\(name) must be a whole number >= \(minimum), got '\(text)'")
        }
        return number
    }

    /// `--reasoning`, or nil when not given (the suites' and config's defaults apply).
    func reasoningLevels() throws -> [ReasoningLevel]? {
        let names = list("--reasoning")
        guard !names.isEmpty else { return nil }
        var seen: Set<String> = []
        return try names.filter { seen.insert($0).inserted }.map { name in
            guard let level = ReasoningLevel(rawValue: name) else {
                let hint = suggestion(for: name, among: ReasoningLevel.allCases.map(\.rawValue)).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError(description: "unknown reasoning level '\(name)'\(hint); use none, light, moderate or deep, comma-separated")
            }
            return level
        }
    }

    /// `--max-pass-rate-drop`, `--max-latency-increase` and `--alpha`, with their defaults.
    func comparisonThresholds() throws -> ComparisonThresholds {
        var thresholds = ComparisonThresholds()
        if let drop = try fraction("--max-pass-rate-drop") { thresholds.maxPassRateDrop = drop }
        if let text = value("--max-latency-increase") {
            guard let increase = Self.number(text), increase >= 0, increase.isFinite else {
                throw UsageError(description: "--max-latency-increase must be a fraction >= 0 (0.2 or 20% allows +20%), got '\(text)'")
            }
            thresholds.maxLatencyIncrease = increase
        }
        if let text = value("--alpha") {
            guard let alpha = Self.number(text), alpha > 0, alpha < 1 else {
                throw UsageError(description: "--alpha must be a significance level between 0 and 1, exclusive (such as 0.05), got '\(text)'")
            }
            thresholds.alpha = alpha
        }
        return thresholds
    }

    /// `0.2`, or `20%` as 0.2.
    private static func number(_ text: String) -> Double? {
        text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
    }

    func fraction(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        var number = Double(text.hasSuffix("%") ? String(text.dropLast()) : text)
        if text.hasSuffix("%") { number = number.map { $0 / 100 } }
        guard let number, (0...1).contains(number) else {
            throw UsageError(description: "\(name) must be a fraction in 0...1 (or a percentage), got '\(text)'")
        }
        return number
    }

    /// `--target`: the recommendation's pass-rate target, above 0.
    func target() throws -> Double? {
        guard let target = try fraction("--target") else { return nil }
        guard target > 0 else { throw UsageError(description: "--target must be above 0, such as 0.8 or 80%") }
        return target
    }
}
