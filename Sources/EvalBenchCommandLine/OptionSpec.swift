/// One option of a command, declared once: the help page, the synopsis, validation and the
/// did-you-mean for a mistyped name are all derived from it.
public struct OptionSpec: Sendable {
    /// The option as typed: two dashes and a name (`--out`).
    public var name: String
    /// What the value is, in capitals (`DIR`); nil for a flag, which takes no value.
    public var valueName: String?
    /// What the option does, for the help page: a sentence or two.
    public var help: String
    /// What applies when the option is not given, for the help page; nil for a flag.
    public var defaultValue: String?
    /// Whether the option may be given more than once; every value is kept, and
    /// `ParsedCommand.list` also splits each at commas.
    public var isRepeatable: Bool
    /// Another option this one only applies with (`--alpha` needs `--baseline`).
    public var requires: String?
    /// Checks one value: nil when it is good, else what is wrong, said after the option's
    /// name ("must be a whole number >= 1, got 'x'").
    public var check: (@Sendable (String) -> String?)?

    /// A flag: on when given, off otherwise.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, defaultValue: nil, isRepeatable: false)
    }

    /// An option that takes a value: `--out DIR` or `--out=DIR`.
    public static func value(_ name: String, _ valueName: String, help: String, default defaultValue: String,
                             repeatable: Bool = false, check: (@Sendable (String) -> String?)? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, defaultValue: defaultValue,
                   isRepeatable: repeatable, check: check)
    }

    /// This option, valid only when `other` is given too.
    public func requiring(_ other: OptionSpec) -> OptionSpec {
        var copy = self
        copy.requires = other.name
        return copy
    }

    /// Whether the option takes no value.
    public var isFlag: Bool { valueName == nil }

    /// `--out DIR`, or `--no-progress` for a flag.
    var label: String { valueName.map { "\(name) \($0)" } ?? name }

    /// `[--out DIR]`, with `...` after one that repeats.
    var synopsis: String { "[\(label)]" + (isRepeatable ? "..." : "") }
}

/// A positional argument of a command: always required; the last one of a command may take
/// several values.
public struct ArgumentSpec: Sendable {
    /// Its name in capitals (`SUITE`).
    public var name: String
    /// What it is, for the help page.
    public var help: String
    /// Whether it takes one or more values (`SUITE...`).
    public var isRepeating: Bool
    /// The only values it accepts (`clear`); empty accepts any.
    public var choices: [String]

    /// An argument named `name`; `repeating` takes one or more values, `choices` limits them.
    public init(_ name: String, help: String, repeating: Bool = false, choices: [String] = []) {
        self.name = name
        self.help = help
        isRepeating = repeating
        self.choices = choices
    }

    /// `SUITE...`, or `DIR`.
    var synopsis: String { isRepeating ? "\(name)..." : name }
}
