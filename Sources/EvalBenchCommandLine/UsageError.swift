/// A command line that does not follow the declaration: what is wrong, said so that the user
/// can fix it, and the command it concerns.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and how to fix it, without the `error:` prefix.
    public var message: String
    /// The command, for the usage line and the pointer to its help; nil for the tool itself.
    public var command: String?

    /// A usage error about `command` (nil: about the tool as a whole).
    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}
