import Testing
@testable import EvalBench

@Suite("A tag's share of a group's samples")
struct SampleSubsetTests {
    /// `count` samples drawn from `distinct` values (so with ties): whole microseconds when
    /// `micros` (as recorded timings are), else some of them -0 and 0 and the rest not.
    private func samples(_ count: Int, distinct: Int, seed: UInt64, micros: Bool) -> [Double] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let draw = Int(generator.next() % UInt64(distinct))
            if micros { return Double(draw * 1_237) / 1000 }
            return draw == 0 ? -0.0 : draw == 1 ? 0.0 : Double(draw) * 0.37
        }
    }

    @Test("gives back exactly the samples inserted, ascending, held as positions, as bits, or not found in the whole", arguments: [
        (whole: 1_000, distinct: 1_000, share: 10, micros: false),  // few: positions
        (whole: 1_000, distinct: 1_000, share: 2, micros: false),   // half: bits
        (whole: 5_000, distinct: 7, share: 1, micros: false),       // every one, mostly ties: bits and repeats
        (whole: 300, distinct: 40, share: 3, micros: false),
        (whole: 1_000, distinct: 1_000, share: 10, micros: true),   // the same against a whole in 4-byte samples
        (whole: 1_000, distinct: 1_000, share: 2, micros: true),
        (whole: 5_000, distinct: 7, share: 1, micros: true),
    ])
    func roundTrip(whole wholeCount: Int, distinct: Int, share: Int, micros: Bool) {
        let whole = samples(wholeCount, distinct: distinct, seed: UInt64(wholeCount * distinct + share), micros: micros)
        let sorted = TimedSamples(whole.sorted())
        #expect(sorted.isCompact == micros)
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

    @Test("equal values take the bits of their run in the whole, and count again only past it")
    func equalValuesTakeTheirRun() {
        // Each value 3 times in the whole (whole microseconds, compact), 200 values.
        let whole = TimedSamples((0..<600).map { Double($0 / 3) / 8 })
        var subset = SampleSubset(of: whole)
        var inserted: [Double] = []
        for index in 0..<600 where index % 3 != 2 {
            subset.insert(whole[index])
            inserted.append(whole[index])
        }
        #expect(subset.positionsCountedAgain == 0)
        // Five of one value: two more than the whole has, counted again.
        for _ in 0..<3 {
            subset.insert(whole[0])
            inserted.append(whole[0])
        }
        #expect(subset.positionsCountedAgain == 1)
        #expect(subset.sortedValues().array == inserted.sorted())
        // A run longer than the scan: every one of 1,000 equal values still comes back.
        let same = TimedSamples([Double](repeating: 2.5, count: 1_000))
        var many = SampleSubset(of: same)
        for _ in 0..<1_000 { many.insert(2.5) }
        #expect(many.sortedValues() == same && many.positionsCountedAgain == 1)
    }

    @Test("an empty subset gives no samples")
    func empty() {
        #expect(SampleSubset(of: [1, 2, 3]).sortedValues().isEmpty)
        var subset = SampleSubset(of: [])
        subset.insert(4)
        #expect(subset.sortedValues() == [4])
    }
}
