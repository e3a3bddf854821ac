import Foundation

/// The `summary.md` section on what backends observed beyond timing and usage: the PCC quota
/// state per request, answers that came from a fallback, and TTFT by how the session started.
/// Nil when no request carries details.
enum RequestDetailsSection {
    static func render(_ results: some Collection<RequestResult>) -> String? {
        var order: [String] = []
        var byBackend: [String: [RequestResult]] = [:]
        for result in results where result.details != nil {
            if byBackend[result.backend] == nil { order.append(result.backend) }
            byBackend[result.backend, default: []].append(result)
        }
        guard !order.isEmpty else { return nil }
        var table = MarkdownTable([
            ("Backend", .left), ("Quota per request", .left), ("Quota resets", .left), ("Fallback answers", .left),
            ("TTFT p50 cold / prewarmed / reused (ms)", .right),
        ])
        for backend in order {
            let requests = byBackend[backend]!
            let quota = AppleQuotaState.allCases.compactMap { state -> String? in
                let count = requests.filter { $0.details?.quota?.state == state }.count
                return count == 0 ? nil : "\(state.rawValue) \(count)"
            }
            let reset = requests.compactMap { $0.details?.quota?.resetDate }.max().map { ISO8601DateFormatter().string(from: $0) }
            let fallbacks = requests.filter { $0.details?.fallback != nil }
            let fallbackText = fallbacks.isEmpty ? "none"
                : "\(fallbacks.count) by \(Set(fallbacks.compactMap { $0.details?.fallback?.backend }).sorted().joined(separator: ", "))"
            let ttft = [RequestDetails.SessionStart.cold, .prewarmed, .reused].map { start -> String in
                let values = requests.filter {
                    $0.details?.session == start && $0.details?.fallback == nil && ($0.status == .pass || $0.status == .fail)
                }.compactMap { $0.timing?.ttftMs }.sorted()
                return ReportFormat.oneDecimal(percentile(50, of: values))
            }.joined(separator: " / ")
            table.appendRow([backend, quota.isEmpty ? "n/a" : quota.joined(separator: ", "), reset ?? "n/a", fallbackText, ttft])
        }
        return "## Quota, fallbacks and sessions\n\n"
            + "Private Cloud Compute's quota as read after each request (it can read healthy until the limit is hit), "
            + "answers a fallback backend gave (graded, but left out of this backend's latency and TTFT), "
            + "and TTFT by how the session started.\n\n" + table.text
    }
}
