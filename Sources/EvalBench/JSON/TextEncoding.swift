/// Whether a file's bytes are UTF-8, the one encoding evalbench reads, and where they stop
/// being so: a file saved as UTF-16 is named as such instead of "found '�'", and an invalid
/// byte in a dataset row is an error at its line and column, as in a suite.
package enum TextEncoding {
    /// What is wrong with `bytes` as UTF-8 text, and where; nil when they are UTF-8.
    package static func problem(in bytes: some Collection<UInt8>) -> (message: String, location: SourceLocation)? {
        let start = Array(bytes.prefix(4))
        if start.starts(with: [0xFF, 0xFE]) || start.starts(with: [0xFE, 0xFF])
            || (start.count >= 2 && (start[0] == 0 || start[1] == 0)) {
            return ("the file is UTF-16 or UTF-32, and evalbench reads UTF-8", SourceLocation(line: 1, column: 1))
        }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var line = 1
        var column = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(scalar):
                if scalar.count == 1, scalar.first == 0x0A {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .emptyInput:
                return nil
            case .error:
                return ("a byte that is not UTF-8", SourceLocation(line: line, column: column))
            }
        }
    }
}
