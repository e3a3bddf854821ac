/// The help pages and the usage line, derived from the declarations in the layout of
/// swift-argument-parser: `OVERVIEW`, `USAGE`, `ARGUMENTS`, `OPTIONS`, 80 columns.
extension ToolSpec {
    static let width = 80
    /// Where descriptions start in the argument, option and command lists.
    static let labelColumn = 26

    /// The tool's help page: what it does, every command with its one line, its own options
    /// and the epilogue.
    public func help() -> String {
        var sections = ["OVERVIEW: \(abstract)", "USAGE: \(name) COMMAND [options]"]
        let commandRows = commands.map { ($0.name, $0.abstract) } + [("help", Self.helpAbstract)]
        sections.append("COMMANDS:\n" + Self.rows(commandRows))
        sections.append("OPTIONS:\n" + Self.rows([("--version", "Show the version."), ("-h, --help", "Show help information.")])
                        + "\n\n  See '\(name) help COMMAND' for a command's arguments and options.")
        if !epilogue.isEmpty { sections.append(epilogue) }
        return sections.joined(separator: "\n\n")
    }

    /// A command's help page: what it does, its synopsis, and every argument and option with
    /// what it does and its default.
    public func help(for command: CommandSpec) -> String {
        var sections = ["OVERVIEW: \(command.abstract)"]
        if !command.discussion.isEmpty { sections.append(Self.wrap(command.discussion, indent: 0)) }
        sections.append(Self.wrapParts(command.synopsisParts, after: "USAGE: \(name) \(command.name) "))
        if !command.arguments.isEmpty {
            sections.append("ARGUMENTS:\n" + Self.rows(command.arguments.map { ($0.synopsis, $0.help) }))
        }
        let options = command.options.map { ($0.label, Self.describe($0)) } + [("-h, --help", "Show help information.")]
        sections.append("OPTIONS:\n" + Self.rows(options))
        return sections.joined(separator: "\n\n")
    }

    /// One line: `evalbench run SUITE... [options]` when the whole synopsis would not fit.
    public func usageLine(for commandName: String?) -> String {
        if commandName == "help" { return "\(name) help [COMMAND]" }
        guard let commandName, let command = command(named: commandName) else { return "\(name) COMMAND [options]" }
        let full = ([name, command.name] + command.synopsisParts).joined(separator: " ")
        if full.count + "usage: ".count <= Self.width { return full }
        return ([name, command.name] + command.arguments.map(\.synopsis) + ["[options]"]).joined(separator: " ")
    }

    /// An error as printed on stderr: `error: …`, one usage line, and where to read more.
    public func errorText(_ error: UsageError) -> String {
        let page = error.command.flatMap { $0 == "help" ? nil : "\(name) help \($0)" } ?? "\(name) help"
        return "error: \(error.message)\nusage: \(usageLine(for: error.command))\nsee '\(page)'"
    }

    static let helpAbstract = "Show help for a command."

    func helpForHelp() -> String {
        ["OVERVIEW: \(Self.helpAbstract)", "USAGE: \(usageLine(for: "help"))",
         "ARGUMENTS:\n" + Self.rows([("COMMAND", "The command to describe; without it, the list of commands.")])]
            .joined(separator: "\n\n")
    }

    /// The option's help with what follows from its declaration: repeating, what it needs,
    /// its default.
    static func describe(_ option: OptionSpec) -> String {
        var text = option.help
        if option.isRepeatable { text += " Repeatable, and takes comma-separated lists." }
        if let requires = option.requires { text += " Only with \(requires)." }
        if let defaultValue = option.defaultValue { text += " (default: \(defaultValue))" }
        return text
    }

    /// Two columns: labels indented by 2, descriptions from `labelColumn`, wrapped; a label too
    /// long for its column puts its description on the next line.
    static func rows(_ rows: [(label: String, text: String)]) -> String {
        rows.map { label, text in
            let head = "  " + label
            let body = wrap(text, indent: labelColumn)
            if head.count < labelColumn - 1 {
                return head + String(repeating: " ", count: labelColumn - head.count) + body.dropFirst(labelColumn)
            }
            return head + "\n" + body
        }.joined(separator: "\n")
    }

    /// `text` wrapped at `width`, every line indented by `indent`.
    static func wrap(_ text: String, indent: Int) -> String {
        wrapParts(text.split(separator: " ").map(String.init), after: String(repeating: " ", count: indent))
    }

    /// `parts` joined by spaces after `prefix`, wrapped at `width`; continuation lines are
    /// indented to the end of `prefix`. A part is never broken.
    static func wrapParts(_ parts: [String], after prefix: String) -> String {
        let indent = String(repeating: " ", count: prefix.count)
        var lines: [String] = []
        var line = prefix
        for part in parts {
            if line.count > indent.count, line.count + 1 + part.count > width {
                lines.append(line)
                line = indent + part
            } else {
                line += (line.count > indent.count && !line.hasSuffix(" ") ? " " : "") + part
            }
        }
        lines.append(line)
        return lines.map { $0.trimmingSuffix(" ") }.joined(separator: "\n")
    }
}

extension String {
    func trimmingSuffix(_ character: Character) -> String {
        var text = self
        while text.last == character { text.removeLast() }
        return text
    }
}
