import Testing
@testable import EvalBench

@Suite("A tag's share of a group's samples")
struct SampleSubsetTests {
    /// `count` samples drawn from `distinct` values (so with ties), some of them -0 and 0.
    private func samples(_ count: Int, distinct: Int, seed: UInt64) -> [Double] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let draw = Int(generator.next() % UInt64(distinct))
            return draw == 0 ? -0.0 : draw == 1 ? 0.0 : Double(draw) * 0.37
        }
    }

    @Test("gives back exactly the samples inserted, ascending, held as positions, as bits, or not found in the whole", arguments: [
        (whole: 1_000, distinct: 1_000, share: 10),  // few: positions
        (whole: 1_000, distinct: 1_000, share: 2),   // half: bits
        (whole: 5_000, distinct: 7, share: 1),       // every one, mostly ties: bits and repeats
        (whole: 300, distinct: 40, share: 3),
    ])
    func roundTrip(whole wholeCount: Int, distinct: Int, share: Int) {
        let whole = samples(wholeCount, distinct: distinct, seed: UInt64(wholeCount * distinct + share))
        let sorted = whole.sorted()
        var subset = SampleSubset(of: sorted)
        var inserted: [Double] = []
        for (index, value) in whole.enumerated() where index % share == 0 {
            subset.insert(value)
            inserted.append(value)
        }
        // Values the whole never had (a subset of another group, or a figure read differently).
        for value in [-5.0, 1e9, 0.185, 0.37 * 3 + 1e-9] {
            subset.insert(value)
            inserted.append(value)
        }
        let got = subset.sortedValues()
        #expect(subset.count == inserted.count)
        #expect(got.count == inserted.count)
        #expect(zip(got, got.dropFirst()).allSatisfy { !($1 < $0) })
        // The same multiset, bit for bit: -0 and 0 are told apart.
        #expect(got.map(\.bitPattern).sorted() == inserted.map(\.bitPattern).sorted())
        for p in [50.0, 90, 95, 99] {
            #expect(percentile(p, of: got) == percentile(p, of: inserted.sorted()))
        }
    }

    @Test("an empty subset gives no samples")
    func empty() {
        #expect(SampleSubset(of: [1, 2, 3]).sortedValues().isEmpty)
        var subset = SampleSubset(of: [])
        subset.insert(4)
        #expect(subset.sortedValues() == [4])
    }
}
