/// A candidate for the Pareto frontier: something with a quality to maximise and a cost to
/// minimise (pass rate against latency or price). A nil or non-finite coordinate means the
/// figure is unknown, and the point takes no part.
package struct ParetoPoint<ID: Hashable & Sendable>: Sendable {
    package var id: ID
    package var quality: Double?
    package var cost: Double?

    package init(id: ID, quality: Double?, cost: Double?) {
        self.id = id
        self.quality = quality
        self.cost = cost
    }
}

extension ParetoPoint: Equatable where ID: Equatable {}

/// The non-dominated points of a set: those for which no other point is at least as good in
/// both quality and cost and strictly better in one.
package enum ParetoFrontier {
    /// The frontier of `points`, by ascending cost (so by ascending quality). Points with the
    /// same quality and cost as a frontier point are on it too, in their input order; a point
    /// with the same quality at a higher cost, or the same cost at a lower quality, is not.
    package static func frontier<ID>(_ points: [ParetoPoint<ID>]) -> [ParetoPoint<ID>] {
        let known = points.enumerated().compactMap { index, point -> (index: Int, quality: Double, cost: Double)? in
            guard let quality = point.quality, let cost = point.cost, quality.isFinite, cost.isFinite else { return nil }
            return (index, quality, cost)
        }
        let byCost = known.sorted { ($0.cost, -$0.quality, $0.index) < ($1.cost, -$1.quality, $1.index) }
        var frontier: [ParetoPoint<ID>] = []
        var best: (quality: Double, cost: Double)?
        for candidate in byCost {
            // Everything before costs no more, so only a strictly better quality, or an exact
            // tie with the best so far, keeps the candidate undominated.
            if let best, candidate.quality < best.quality
                || (candidate.quality == best.quality && candidate.cost != best.cost) {
                continue
            }
            frontier.append(points[candidate.index])
            best = (candidate.quality, candidate.cost)
        }
        return frontier
    }
}
