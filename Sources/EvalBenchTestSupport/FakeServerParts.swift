import Foundation

/// Counts requests across connection threads, for the fake servers' scripted replies and ids.
final class RequestCounter: @unchecked Sendable {
    // Sendable because `count` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var count = 0

    /// The number of earlier calls.
    func next() -> Int {
        lock.withLock {
            defer { count += 1 }
            return count
        }
    }
}

/// JSON with sorted keys, so replies are byte-for-byte reproducible; compact unless `pretty`
/// (as Google's error bodies are).
func json(_ object: [String: Any], pretty: Bool = false) -> String {
    var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
    if pretty { options.insert(.prettyPrinted) }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data()
    return String(decoding: data, as: UTF8.self)
}
