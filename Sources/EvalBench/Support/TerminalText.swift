import Foundation

/// Text from a server or a file, made safe to print on a terminal: a control character (an
/// escape sequence's ESC, a bell, a carriage return, C1 controls) becomes a visible escape
/// such as `\u{1B}`, so that an answer, a tool's name or a case id cannot recolour, retitle
/// or clear the user's terminal, or forge a line of output.
package enum TerminalText {
    /// `path` as one word for a POSIX shell, for a command printed to be copied: as it is when
    /// it holds only characters no shell treats specially, single-quoted otherwise (a quote
    /// inside written `'\''`).
    package static func shellWord(_ path: String) -> String {
        let plain = !path.isEmpty && path.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "/._-+,:@%=".unicodeScalars.contains(scalar))
        }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

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

    /// C0 controls but the tab, and what a screen acts on (`actsOnScreen`).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || actsOnScreen(scalar.value)
    }

    /// DEL, C1 controls, and the bidirectional embeddings, overrides and isolates, which can
    /// make text read in another order than it is (U+202A–U+202E, U+2066–U+2069): escaped in
    /// text reports and on the terminal, replaced in HTML and XML (`JUnitXML.escape`).
    package static func actsOnScreen(_ value: UInt32) -> Bool {
        (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// `text` made safe to `cat` or to render as a Markdown or CSV file: `safe`'s escapes, but
    /// line breaks and tabs, which these files are made of, stay. Report text comes from
    /// servers (answers, model names, error messages), and summary.md is also what GitHub's
    /// job page shows.
    package static func safeDocument(_ text: String) -> String {
        guard mayHoldControl(text) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar), scalar != "\n", scalar != "\r" {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` as a report file named `file` holds it: `safeDocument` for Markdown and CSV,
    /// as it is for the rest (HTML, XML and SVG replace control characters as they are written).
    package static func forReport(_ text: String, file: URL) -> String {
        ["md", "csv"].contains(file.pathExtension.lowercased()) ? safeDocument(text) : text
    }

    /// Whether `text`'s UTF-8 holds a character `safeDocument` escapes: a C0 control other than
    /// tab and line breaks, DEL, a C1 control (C2 80–9F) or a bidirectional control (E2 80
    /// AA–AE, E2 81 A6–A9). A byte scan, so that a large report (whose own `·`, `—` and `…`
    /// share those lead bytes) is not walked scalar by scalar.
    private static func mayHoldControl(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let count = bytes.count
            var index = 0
            while index < count {
                let byte = bytes[index]
                if (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F { return true }
                if byte == 0xC2, index + 1 < count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
                if byte == 0xE2, index + 2 < count {
                    let second = bytes[index + 1], third = bytes[index + 2]
                    if (second == 0x80 && (0xAA...0xAE).contains(third)) || (second == 0x81 && (0xA6...0xA9).contains(third)) { return true }
                }
                index += 1
            }
            return false
        }
    }
}
