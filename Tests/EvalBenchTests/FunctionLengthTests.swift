import Foundation
import Testing

/// No function in Sources is longer than 80 lines (issue 15): a function that grows past it
/// is split into named steps. Lines are counted from the declaration to its closing brace;
/// braces in strings and comments do not count.
@Suite("Function length")
struct FunctionLengthTests {
    static let limit = 80

    /// The brace depth at the start of each line of Swift `text`, skipping string literals
    /// (with interpolations, raw and multi-line ones) and comments.
    static func depths(_ text: String) -> [Int] {
        let characters = Array(text.unicodeScalars)
        var depths = [0]
        var depth = 0
        var index = 0
        func starts(_ prefix: String, at position: Int) -> Bool {
            let scalars = Array(prefix.unicodeScalars)
            guard position + scalars.count <= characters.count else { return false }
            return Array(characters[position..<position + scalars.count]) == scalars
        }
        func skipString(from start: Int, hashes: String, multiLine: Bool) -> Int {
            let close = (multiLine ? "\"\"\"" : "\"") + hashes
            var position = start
            while position < characters.count {
                if characters[position] == "\n" {
                    if !multiLine { return position }
                    depths.append(depth)
                } else if starts("\\" + hashes + "(", at: position) {
                    position += 2 + hashes.count
                    var level = 1
                    while position < characters.count, level > 0 {
                        if characters[position] == "\"" { position = skipString(from: position + 1, hashes: "", multiLine: false); continue }
                        if characters[position] == "(" { level += 1 } else if characters[position] == ")" { level -= 1 }
                        position += 1
                    }
                    continue
                } else if characters[position] == "\\" && hashes.isEmpty {
                    if position + 1 < characters.count, characters[position + 1] == "\n" { depths.append(depth) }
                    position += 2
                    continue
                } else if starts(close, at: position) {
                    return position + close.unicodeScalars.count
                }
                position += 1
            }
            return position
        }
        while index < characters.count {
            let character = characters[index]
            if character == "\n" {
                depths.append(depth)
                index += 1
            } else if starts("//", at: index) {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if starts("/*", at: index) {
                index += 2
                while index < characters.count, !starts("*/", at: index) {
                    if characters[index] == "\n" { depths.append(depth) }
                    index += 1
                }
                index += 2
            } else if character == "#" || character == "\"" {
                var hashes = ""
                var position = index
                while position < characters.count, characters[position] == "#" { hashes += "#"; position += 1 }
                guard position < characters.count, characters[position] == "\"" else { index = position + (hashes.isEmpty ? 1 : 0); continue }
                let multiLine = starts("\"\"\"", at: position)
                index = skipString(from: position + (multiLine ? 3 : 1), hashes: hashes, multiLine: multiLine)
            } else {
                if character == "{" { depth += 1 } else if character == "}" { depth -= 1 }
                index += 1
            }
        }
        return depths
    }

    static let declaration = try! NSRegularExpression(pattern: #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|final|override|mutating|nonisolated|convenience|required|class)\s+)*(?:func |init[?(<]|deinit|subscript)"#)

    /// Each function of `text` longer than `limit` lines, as "line: length".
    static func longFunctions(in text: String, limit: Int = limit) -> [String] {
        let lines = text.components(separatedBy: "\n")
        let depth = depths(text)
        guard depth.count == lines.count else { return ["scanner lost track: \(depth.count) depths for \(lines.count) lines"] }
        var found: [String] = []
        for (index, line) in lines.enumerated()
        where declaration.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
            guard let open = lines[index...].firstIndex(where: { $0.contains("{") }) else { continue }
            var end = open + 1
            while end < lines.count, depth[end] > depth[index] { end += 1 }
            let length = end - index
            if length > limit { found.append("\(index + 1): \(length) lines") }
        }
        return found
    }

    @Test("the scanner counts a function's lines, not braces inside strings or comments")
    func scannerCountsLines() {
        let body = (0..<6).map { "    let x\($0) = \"}\\(\"{\")\" // }" }.joined(separator: "\n")
        let text = "func short() {\n\(body)\n}\nfunc after() {\n}\n"
        #expect(Self.longFunctions(in: text, limit: 8) == [], "8 lines")
        #expect(Self.longFunctions(in: text, limit: 7) == ["1: 8 lines"])
        #expect(Self.depths("let s = \"\"\"\n{\n\"\"\"\nfunc f() {\n").last == 1)
    }

    @Test("no function in Sources is longer than 80 lines")
    func noLongFunctions() throws {
        let root = PackagePaths.root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var long: [String] = []
        var scanned = 0
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            scanned += 1
            let relative = url.path.replacingOccurrences(of: root.path + "/", with: "")
            long += Self.longFunctions(in: try String(contentsOf: url, encoding: .utf8)).map { "\(relative):\($0)" }
        }
        #expect(scanned > 100, "found the sources")
        #expect(long.isEmpty, "split these into named steps:\n\(long.joined(separator: "\n"))")
    }
}
