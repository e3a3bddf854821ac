/// The model names a group's answered requests reported, counted: a router or a server with a
/// fallback can answer one group with several models, and the reports say so. Its size is
/// bounded whatever the group's: the first `capacity` distinct names are counted one by one,
/// and requests that reported any later name only as `otherRequests`.
package struct ModelTally: Sendable, Equatable {
    /// How many distinct names are counted one by one.
    package static let capacity = 8
    /// The distinct names in the order they first came, and how many requests reported each.
    package private(set) var names: [String] = []
    package private(set) var counts: [Int] = []
    /// Requests that reported a name after `capacity` others had come.
    package private(set) var otherRequests = 0

    package init() {}

    mutating func add(_ name: String) {
        if let index = names.firstIndex(of: name) {
            counts[index] += 1
        } else if names.count < Self.capacity {
            names.append(name)
            counts.append(1)
        } else {
            otherRequests += 1
        }
    }

    /// The counted names with their requests, most requests first (the first to come first among equals).
    package var ranked: [(name: String, requests: Int)] {
        names.indices.sorted { counts[$0] != counts[$1] ? counts[$0] > counts[$1] : $0 < $1 }
            .map { (names[$0], counts[$0]) }
    }

    /// How many distinct names were reported; nil when more than `capacity` were (not counted).
    package var distinctNames: Int? {
        otherRequests > 0 ? nil : names.count
    }

    /// What the reports show: the one name when every request reported it, else each name with
    /// its requests, most first (`small-fallback-v1 (4), big-model-v2 (1)`), and the requests
    /// of names past `capacity` as `other models (3)`; nil when no request reported a name.
    package var text: String? {
        let ranked = ranked
        guard let first = ranked.first else { return nil }
        if ranked.count == 1 && otherRequests == 0 { return first.name }
        let counted = ranked.map { "\($0.name) (\($0.requests))" }
        return (counted + (otherRequests > 0 ? ["other models (\(otherRequests))"] : [])).joined(separator: ", ")
    }
}
