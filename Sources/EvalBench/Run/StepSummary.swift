import Foundation

/// What evalbench appends to `GITHUB_STEP_SUMMARY`: a report trimmed by section so that the
/// step's summary stays within GitHub's limit ("supports content up to a size of 1024k"; over
/// it, the job page loses the whole summary), saying which sections it left out and where
/// they are.
package enum StepSummary {
    /// GitHub's limit on one step's summary, in bytes.
    package static let limit = 1_048_576

    /// `markdown` whole when it fits in `budget` bytes of UTF-8; else its title (the part
    /// before the first `## ` heading, itself cut at a line if need be) and as many of its
    /// `## ` sections, in order, as fit, then a note naming each one left out with its size
    /// and `source`, the file that holds them all. Empty when not even the note fits.
    package static func fit(_ markdown: String, budget: Int, source: String) -> String {
        if markdown.utf8.count <= budget { return markdown }
        let sections = split(markdown)
        // Room for the note naming every section left out, at its longest.
        let noteRoom = 400 + sections.reduce(0) { $0 + heading($1).utf8.count + 24 }
        guard budget > noteRoom else { return "" }
        var kept: [String] = []
        var left: [String] = []
        var used = 0
        for (index, section) in sections.enumerated() {
            let size = section.utf8.count
            if used + size + noteRoom <= budget {
                kept.append(section)
                used += size
            } else if index == 0 {
                let cut = cutAtLine(section, to: budget - noteRoom)
                kept.append(cut)
                used += cut.utf8.count
                left.append("the rest of the title section (\(bytes(size - cut.utf8.count)))")
            } else {
                left.append("\(heading(section)) (\(bytes(size)))")
            }
        }
        let note = "\n---\n\n_This step summary leaves out, to stay under GitHub's 1 MiB limit: "
            + left.joined(separator: ", ") + ". The whole report is \(source)._\n"
        return kept.joined() + note
    }

    /// The title, then each `## ` section with its heading, in order; together they are `markdown`.
    static func split(_ markdown: String) -> [String] {
        var sections: [String] = [""]
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).dropLast(markdown.hasSuffix("\n") ? 1 : 0) {
            if line.hasPrefix("## ") { sections.append("") }
            sections[sections.count - 1] += line + "\n"
        }
        return sections
    }

    private static func heading(_ section: String) -> String {
        String(section.prefix { $0 != "\n" }.prefix(80))
    }

    private static func cutAtLine(_ text: String, to size: Int) -> String {
        var kept = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard kept.utf8.count + line.utf8.count + 1 <= size else { break }
            kept += line + "\n"
        }
        return kept
    }

    private static func bytes(_ count: Int) -> String { ByteCount.text(Int64(count)) }
}
