import Foundation

/// A command line that follows its command's declaration: every option known, every value
/// checked, the arguments counted.
public struct ParsedCommand: Sendable, Equatable {
    /// The command's name.
    public var name: String
    /// The positional arguments, in order.
    public var arguments: [String]
    /// Every value given per option name, in order.
    public var values: [String: [String]]
    /// The flags given.
    public var flags: Set<String>

    /// A parsed `name` command with these arguments, values and flags.
    public init(name: String, arguments: [String] = [], values: [String: [String]] = [:], flags: Set<String> = []) {
        self.name = name
        self.arguments = arguments
        self.values = values
        self.flags = flags
    }

    /// The option's value; the last one when it was given more than once.
    public func value(_ option: OptionSpec) -> String? { values[option.name]?.last }

    /// Every value of a repeatable option, each comma-separated list split, blanks dropped.
    public func list(_ option: OptionSpec) -> [String] {
        (values[option.name] ?? []).flatMap(Self.items)
    }

    /// The items of one comma-separated value, trimmed, blanks dropped.
    public static func items(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether the flag, or the option, was given.
    public func has(_ option: OptionSpec) -> Bool { flags.contains(option.name) || values[option.name] != nil }
}
