/// The candidate closest to `word` by case-insensitive edit distance (a transposition counts
/// as one edit), or nil when none is close enough to be a plausible typo.
///
/// Up to one edit is allowed for words of three characters or fewer, two up to six, three beyond.
/// On a tie the earlier candidate wins, so callers list the likelier names first.
package func suggestion(for word: String, among candidates: [String]) -> String? {
    let limit = word.count <= 3 ? 1 : word.count <= 6 ? 2 : 3
    // The distance is at least the difference in length: a word far longer than every
    // candidate (a 5 MB "type") is no typo, and is not compared character by character.
    let longest = candidates.map(\.count).max() ?? 0
    guard word.utf8.count <= (longest + limit) * 4 else { return nil }
    let target = Array(word.lowercased())
    var best: (candidate: String, distance: Int)?
    for candidate in candidates where candidate != word && abs(candidate.count - target.count) <= limit {
        let distance = editDistance(target, Array(candidate.lowercased()))
        if distance <= limit, distance < (best?.distance ?? .max) {
            best = (candidate, distance)
        }
    }
    return best?.candidate
}

/// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
private func editDistance(_ source: [Character], _ target: [Character]) -> Int {
    if source.isEmpty { return target.count }
    if target.isEmpty { return source.count }
    var previousRow: [Int] = []
    var row = Array(0...target.count)
    for i in 1...source.count {
        var next = [i] + Array(repeating: 0, count: target.count)
        for j in 1...target.count {
            let cost = source[i - 1] == target[j - 1] ? 0 : 1
            next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + cost)
            if i > 1, j > 1, source[i - 1] == target[j - 2], source[i - 2] == target[j - 1] {
                next[j] = min(next[j], previousRow[j - 2] + 1)
            }
        }
        previousRow = row
        row = next
    }
    return row[target.count]
}
