/// One command of a tool (`evalbench run`), declared once with its help, its arguments and
/// its options.
public struct CommandSpec: Sendable {
    /// The command as typed.
    public var name: String
    /// One line for the tool's command list and the top of the help page.
    public var abstract: String
    /// More for the help page, or empty.
    public var discussion: String
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    /// Pairs of options that contradict each other (`--cache`, `--no-cache`).
    public var conflicts: [(OptionSpec, OptionSpec)]

    /// A command; only its last argument may repeat.
    public init(name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
                options: [OptionSpec] = [], conflicts: [(OptionSpec, OptionSpec)] = []) {
        precondition(arguments.dropLast().allSatisfy { !$0.isRepeating }, "only the last argument of '\(name)' may repeat")
        precondition(Set(options.map(\.name)).count == options.count, "an option of '\(name)' is declared twice")
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.conflicts = conflicts
    }

    /// The declared option called `name`.
    func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// `SUITE...` or `BASELINE_DIR CURRENT_DIR`.
    var argumentSynopsis: String { arguments.map(\.synopsis).joined(separator: " ") }

    /// The synopsis tokens after the command's name: its arguments, then each option.
    var synopsisParts: [String] {
        var parts = arguments.map(\.synopsis)
        var joined: Set<String> = []
        for option in options where !joined.contains(option.name) {
            if let pair = conflicts.first(where: { $0.0.name == option.name }), pair.0.isFlag, pair.1.isFlag {
                parts.append("[\(pair.0.name) | \(pair.1.name)]")
                joined.insert(pair.1.name)
            } else {
                parts.append(option.synopsis)
            }
        }
        return parts
    }
}
