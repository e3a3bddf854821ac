import Foundation

/// Text from a server or a file, made safe to print on a terminal: a control character (an
/// escape sequence's ESC, a bell, a carriage return, C1 controls) becomes a visible escape
/// such as `\u{1B}`, so that an answer, a tool's name or a case id cannot recolour, retitle
/// or clear the user's terminal, or forge a line of output.
package enum TerminalText {
    package static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// C0 controls but the tab, DEL and C1 controls.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }
}
