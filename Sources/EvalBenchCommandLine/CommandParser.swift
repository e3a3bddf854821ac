/// Reads one command's arguments against its declaration.
struct CommandParser {
    let command: CommandSpec
    let suggest: @Sendable (String, [String]) -> String?

    /// Options and arguments come in any order; `--` ends the options, and after it
    /// everything is an argument. A value may follow its option or be joined with `=`.
    func parse(_ words: [String]) throws(UsageError) -> ParsedCommand {
        var parsed = ParsedCommand(name: command.name)
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !Self.looksLikeOption(word) {
                parsed.arguments.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let (name, inline) = Self.split(word)
            guard let option = command.option(named: name) else { throw unknownOption(name) }
            if option.isFlag {
                if inline != nil { throw error("\(name) takes no value; give \(name) alone") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                value = try valueAfter(option, next: index < words.count ? words[index] : nil)
                index += 1
            }
            try checkGiven(option, value)
            if let problem = option.check?(value) { throw error("\(name) \(problem)") }
            parsed.values[name, default: []].append(value)
        }
        try checkArguments(parsed.arguments)
        try checkCombinations(parsed)
        return parsed
    }

    /// An empty value (`--out=`, `--case "$UNSET"`) would mean the current directory or no
    /// filter at all: it is refused. A repeatable option's value is a comma-separated list,
    /// which must name something. (A single-value option given twice keeps the last, as a
    /// wrapper script's defaults are overridden.)
    private func checkGiven(_ option: OptionSpec, _ value: String) throws(UsageError) {
        let blank = { (text: Substring) in text.allSatisfy { $0 == " " || $0 == "\t" } }
        if blank(Substring(value)) {
            throw error("\(option.name) needs a value, got an empty one (an unset variable?): \(option.name) \(option.valueName ?? "VALUE")")
        }
        if option.isRepeatable, value.split(separator: ",", omittingEmptySubsequences: false).allSatisfy(blank) {
            throw error("\(option.name) '\(value)' names nothing; give one or more names, comma-separated")
        }
    }

    /// A word that starts with `-` is an option, except `-` alone and negative numbers.
    static func looksLikeOption(_ word: String) -> Bool {
        word.hasPrefix("-") && word != "-" && Double(word) == nil
    }

    /// `--out=DIR` into `--out` and `DIR`.
    private static func split(_ word: String) -> (name: String, value: String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    private func valueAfter(_ option: OptionSpec, next: String?) throws(UsageError) -> String {
        let valueName = option.valueName ?? "VALUE"
        guard let next else { throw error("\(option.name) needs a value: \(option.name) \(valueName)") }
        guard !Self.looksLikeOption(next) else {
            throw error("\(option.name) needs a value (\(valueName)), but the next argument '\(next)' is an option; "
                        + "give the value after \(option.name), or write \(option.name)=\(valueName) for one that starts with '-'")
        }
        return next
    }

    private func unknownOption(_ name: String) -> UsageError {
        var message = "unknown option '\(name)' for '\(command.name)'"
        if let guess = suggest(name, command.options.map(\.name) + ["--help"]) { message += "; did you mean '\(guess)'?" }
        return error(message)
    }

    private func checkArguments(_ arguments: [String]) throws(UsageError) {
        let declared = command.arguments
        if arguments.count < declared.count {
            let missing = declared[arguments.count...].map(\.name).joined(separator: " and ")
            throw error("\(command.name) needs \(command.argumentSynopsis); missing \(missing)")
        }
        if declared.last?.isRepeating != true, arguments.count > declared.count {
            let takes = declared.isEmpty ? "no arguments" : command.argumentSynopsis
            throw error("unexpected argument '\(arguments[declared.count])': \(command.name) takes \(takes)")
        }
        for (index, argument) in arguments.enumerated() {
            let spec = declared[min(index, declared.count - 1)]
            guard !spec.choices.isEmpty, !spec.choices.contains(argument) else { continue }
            var message = "unknown \(spec.name) '\(argument)' for '\(command.name)'"
            if let guess = suggest(argument, spec.choices) { message += "; did you mean '\(guess)'?" }
            throw error(message + " (\(command.name) takes \(spec.choices.joined(separator: ", ")))")
        }
    }

    private func checkCombinations(_ parsed: ParsedCommand) throws(UsageError) {
        for (first, second) in command.conflicts where parsed.has(first) && parsed.has(second) {
            throw error("\(first.name) and \(second.name) contradict each other; give one")
        }
        for option in command.options where parsed.has(option) {
            guard let required = option.requires, let other = command.option(named: required), !parsed.has(other) else { continue }
            throw error("\(option.name) applies only with \(other.label); give \(other.name) too")
        }
    }

    private func error(_ message: String) -> UsageError { UsageError(message, command: command.name) }
}
