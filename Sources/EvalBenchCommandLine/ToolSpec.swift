/// A command-line tool declared once: its commands with their arguments and options, from
/// which parsing, validation, did-you-mean, the help pages and the usage line of an error
/// are all derived, in the conventions of swift-argument-parser.
public struct ToolSpec: Sendable {
    /// The executable's name.
    public var name: String
    /// One line: what the tool does.
    public var abstract: String
    /// What `--version` prints after the name.
    public var version: String
    public var commands: [CommandSpec]
    /// Sections after the command list on the tool's help page (such as the exit codes), or empty.
    public var epilogue: String
    /// The likeliest of `candidates` that `word` is a typo of, or nil: the did-you-mean.
    public var suggest: @Sendable (_ word: String, _ candidates: [String]) -> String?

    /// A tool with these commands; `suggest` proposes a correction for a mistyped name.
    public init(name: String, abstract: String, version: String, commands: [CommandSpec], epilogue: String = "",
                suggest: @escaping @Sendable (_ word: String, _ candidates: [String]) -> String?) {
        precondition(Set(commands.map(\.name)).count == commands.count, "a command of '\(name)' is declared twice")
        self.name = name
        self.abstract = abstract
        self.version = version
        self.commands = commands
        self.epilogue = epilogue
        self.suggest = suggest
    }

    /// What `arguments` (the command line without the executable) asks for. `help`, `--help`
    /// and `-h` anywhere before `--` ask for a help page, whatever else the line holds.
    public func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let first = arguments.first else {
            throw UsageError("no command given; the commands are \(commandNames.joined(separator: ", "))")
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "help", "--help", "-h":
            return .help(try helpPage(for: rest))
        case "--version":
            if let extra = rest.first { throw UsageError("unexpected argument '\(extra)' after --version") }
            return .version("\(name) \(version)")
        default:
            break
        }
        guard let command = command(named: first) else { throw unknown(first) }
        if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            return .help(help(for: command))
        }
        return .command(try CommandParser(command: command, suggest: suggest).parse(rest))
    }

    /// The declared command called `name`.
    public func command(named name: String) -> CommandSpec? { commands.first { $0.name == name } }

    /// Every command's name, and `help`.
    var commandNames: [String] { commands.map(\.name) + ["help"] }

    /// `help`, or `help COMMAND`.
    private func helpPage(for words: [String]) throws(UsageError) -> String {
        guard let word = words.first else { return help() }
        if words.count > 1 { throw UsageError("unexpected argument '\(words[1])': help takes one COMMAND", command: "help") }
        if word == "help" { return helpForHelp() }
        guard let command = command(named: word) else { throw unknown(word) }
        return help(for: command)
    }

    private func unknown(_ word: String) -> UsageError {
        let isOption = word.hasPrefix("-")
        var message = isOption ? "unknown option '\(word)'" : "unknown command '\(word)'"
        if let guess = suggest(word, isOption ? ["--help", "--version"] : commandNames) {
            message += "; did you mean '\(guess)'?"
        }
        return UsageError(message)
    }
}

/// What a command line asks for.
public enum Invocation: Sendable, Equatable {
    /// Run this command.
    case command(ParsedCommand)
    /// Print this help page on stdout and exit 0.
    case help(String)
    /// Print this version line on stdout and exit 0.
    case version(String)
}
