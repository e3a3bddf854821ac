import Foundation

/// Regular-expression matching that cannot stall a run. ICU, like every backtracking engine,
/// can take exponential time on some pattern and text pairs (`(.*a){25}` on 41 characters
/// took 17 s), so a match gives up after a time limit, and the shapes known to explode are
/// refused when the suite loads.
enum BoundedRegex {
    /// The most one match may take before the assertion gives up.
    static let defaultTimeLimit: TimeInterval = 2

    enum Outcome: Equatable {
        case matched, noMatch
        /// The engine was still working after `seconds`; whether it matches is unknown.
        case timedOut(seconds: TimeInterval)
    }

    /// Whether `regex` matches anywhere in `text`, within `timeLimit`. ICU calls back
    /// periodically during a long match (`.reportProgress`), which is where it is stopped.
    static func firstMatch(_ regex: NSRegularExpression, in text: String,
                           timeLimit: TimeInterval = defaultTimeLimit) -> Outcome {
        let deadline = Date().addingTimeInterval(timeLimit)
        var outcome = Outcome.noMatch
        regex.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) { match, _, stop in
            if match != nil {
                outcome = .matched
                stop.pointee = true
            } else if Date() > deadline {
                outcome = .timedOut(seconds: timeLimit)
                stop.pointee = true
            }
        }
        return outcome
    }

    /// Why `pattern` would backtrack catastrophically, or nil when no known shape is found: a
    /// group repeated without bound (or 10 times or more) whose body is itself a repetition
    /// (`(a+)+`, `(\w*)*`) or holds `.*` or `.+` (`(.*a){25}`). Such a group can split the same
    /// text between its iterations in exponentially many ways, all tried before a failure.
    static func catastrophicShape(in pattern: String) -> String? {
        let characters = Array(pattern)
        var openings: [Int] = []
        var index = 0
        var inClass = false
        while index < characters.count {
            let character = characters[index]
            if character == "\\" { index += 2; continue }
            if inClass { if character == "]" { inClass = false }; index += 1; continue }
            switch character {
            case "[": inClass = true
            case "(": openings.append(index)
            case ")":
                guard let start = openings.popLast() else { break }
                let body = String(characters[(start + 1)..<index])
                if repeatsMany(characters, after: index), let reason = explosiveBody(body) {
                    return "the group \(String(characters[start...index])) is repeated and \(reason)"
                }
            default: break
            }
            index += 1
        }
        return nil
    }

    /// Whether the quantifier after position `index` repeats without bound or 10 times or more.
    private static func repeatsMany(_ characters: [Character], after index: Int) -> Bool {
        guard index + 1 < characters.count else { return false }
        switch characters[index + 1] {
        case "*", "+": return true
        case "{":
            guard let close = characters[(index + 1)...].firstIndex(of: "}") else { return false }
            let bounds = String(characters[(index + 2)..<close]).split(separator: ",", omittingEmptySubsequences: false)
            if bounds.count == 2, bounds[1].trimmingCharacters(in: .whitespaces).isEmpty { return true }
            return (bounds.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0) >= 10
        default: return false
        }
    }

    /// Why a repeated group's body can match the same text in many ways, if it can.
    private static func explosiveBody(_ body: String) -> String? {
        var body = body
        for prefix in ["?:", "?>"] where body.hasPrefix(prefix) {
            if prefix == "?>" { return nil } // An atomic group never backtracks into itself.
            body.removeFirst(prefix.count)
        }
        if body.contains(".*") || body.contains(".+") {
            return "holds \(body.contains(".*") ? ".*" : ".+"), so its iterations can split the text in exponentially many ways"
        }
        let atom = #"^(\\.|\[[^\]]*\]|[^()|\\\[])(\*|\+|\{\d+,\d*\})$"#
        if body.range(of: atom, options: .regularExpression) != nil {
            return "its body \(body) is itself a repetition, so a failed match tries every way of splitting the text"
        }
        return nil
    }
}
