import Testing
@testable import EvalBench

@Test("Exact McNemar: 0 against 5 discordant pairs gives p = 0.0625")
func mcNemarZeroFive() {
    #expect(abs(mcNemarExactPValue(b: 0, c: 5) - 0.0625) < 1e-12)
    #expect(abs(mcNemarExactPValue(b: 5, c: 0) - 0.0625) < 1e-12)
}

@Test("Exact McNemar: 1 against 9 gives p = 22/1024 ≈ 0.0215")
func mcNemarOneNine() {
    #expect(abs(mcNemarExactPValue(b: 1, c: 9) - 22.0 / 1024) < 1e-12)
}

@Test("Exact McNemar: no discordant pairs or an even split gives p = 1")
func mcNemarNoEvidence() {
    #expect(mcNemarExactPValue(b: 0, c: 0) == 1)
    #expect(mcNemarExactPValue(b: 2, c: 2) == 1)
    #expect(mcNemarExactPValue(b: 3, c: 4) == 1)
}

@Test("Exact McNemar: 20 flips one way is far below 0.05 and thousands of pairs stay finite")
func mcNemarLarge() {
    #expect(abs(mcNemarExactPValue(b: 0, c: 20) - 2.0 / 1_048_576) < 1e-15)
    let p = mcNemarExactPValue(b: 1000, c: 1200)
    #expect(p > 0 && p < 0.001)
    #expect(mcNemarExactPValue(b: 1500, c: 1500) == 1)
}

@Test("Mann-Whitney: 1...5 against 6...10 has U = 0 and p ≈ 0.01219")
func mannWhitneySeparated() throws {
    let result = try #require(mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]))
    #expect(result.u == 0)
    #expect(abs(result.pValue - 0.0121858) < 1e-6)
    let reversed = try #require(mannWhitneyU([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]))
    #expect(reversed.u == 25)
    #expect(abs(reversed.pValue - result.pValue) < 1e-12)
}

@Test("Mann-Whitney with ties: [1,2,2,3] against [2,3,4,5] has U = 2.5 and p ≈ 0.13666")
func mannWhitneyTies() throws {
    let result = try #require(mannWhitneyU([1, 2, 2, 3], [2, 3, 4, 5]))
    #expect(result.u == 2.5)
    #expect(abs(result.pValue - 0.1366582) < 1e-6)
}

@Test("Mann-Whitney: identical samples give p = 1 and an empty sample gives nil")
func mannWhitneyDegenerate() throws {
    let same = try #require(mannWhitneyU([3, 3, 3], [3, 3]))
    #expect(same.pValue == 1)
    let shuffled = try #require(mannWhitneyU([1, 2, 3, 4], [4, 3, 2, 1]))
    #expect(shuffled.pValue == 1)
    #expect(mannWhitneyU([], [1]) == nil)
    #expect(mannWhitneyU([1], []) == nil)
}

@Test("Latency percentiles are nearest-rank p50, p90, p95, p99")
func latencyPercentileSummary() throws {
    let values = (1...100).reversed().map(Double.init)
    let percentiles = try #require(LatencyPercentiles(values))
    #expect(percentiles.p50 == 50)
    #expect(percentiles.p90 == 90)
    #expect(percentiles.p95 == 95)
    #expect(percentiles.p99 == 99)
    #expect(LatencyPercentiles([]) == nil)
}

@Test("SplitMix64 seeded with 0 starts with the reference value 0xE220A8397B1DCDAF")
func splitMixReference() {
    var generator = SplitMix64(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
}

@Test("The bootstrap interval is deterministic for a seed, brackets the estimate, and needs 20 values")
func bootstrapInterval() throws {
    let values = (1...40).map { Double($0 * $0 % 97) }
    let first = try #require(bootstrapPercentileInterval(50, of: values, seed: 7))
    let second = try #require(bootstrapPercentileInterval(50, of: values, seed: 7))
    #expect(first.low == second.low && first.high == second.high)
    let median = try #require(percentile(50, of: values.sorted()))
    #expect(first.low <= median && median <= first.high)
    #expect(first.low < first.high)
    #expect(values.contains(first.low) && values.contains(first.high))
    #expect(bootstrapPercentileInterval(50, of: Array(values.prefix(19))) == nil)
    #expect(bootstrapPercentileInterval(50, of: Array(values.prefix(20))) != nil)
}

@Test("The bootstrap interval equals sorting every resample, ties included, at p50 and p95")
func bootstrapMatchesSortingEachResample() throws {
    // The reference: draw each resample with the same generator, sort it, take its nearest rank.
    func sortingEachResample(_ p: Double, of values: [Double], resamples: Int, seed: UInt64) -> (low: Double, high: Double)? {
        var generator = SplitMix64(seed: seed)
        var estimates: [Double] = []
        for _ in 0..<resamples {
            let resample = (0..<values.count).map { _ in
                values[Int(generator.next().multipliedFullWidth(by: UInt64(values.count)).high)]
            }.sorted()
            estimates.append(percentile(p, of: resample)!)
        }
        estimates.sort()
        return (percentile(2.5, of: estimates)!, percentile(97.5, of: estimates)!)
    }
    // Few distinct values, so ties are common, in no particular order.
    let values = (0..<57).map { Double(($0 * 37 + 11) % 23) * 1.5 }
    for p in [50.0, 95.0] {
        let fast = try #require(bootstrapPercentileInterval(p, of: values, resamples: 300, seed: 42))
        let reference = try #require(sortingEachResample(p, of: values, resamples: 300, seed: 42))
        #expect(fast.low == reference.low && fast.high == reference.high, "p\(p): \(fast) vs \(reference)")
    }
}

@Test("The case bootstrap equals pooling the drawn cases and sorting every pool, with cases of different sizes")
func caseBootstrapMatchesPoolingEachResample() throws {
    // 30 cases of 1 to 4 values each, ties common, cases named out of order.
    var values: [Double] = [], cases: [UInt32] = []
    for index in 0..<30 {
        for member in 0...(index % 4) {
            values.append(Double((index * 13 + member * 5) % 17))
            cases.append(UInt32((index * 7) % 30) + 1000)
        }
    }
    // The reference: the cases in the order they first come, drawn with the same generator.
    var members: [UInt32: [Double]] = [:], order: [UInt32] = []
    for (value, name) in zip(values, cases) {
        if members[name] == nil { order.append(name) }
        members[name, default: []].append(value)
    }
    for p in [50.0, 90.0, 99.0] {
        var generator = SplitMix64(seed: 11)
        var estimates: [Double] = []
        for _ in 0..<300 {
            var pool: [Double] = []
            for _ in 0..<order.count {
                pool += members[order[Int(generator.next().multipliedFullWidth(by: UInt64(order.count)).high)]]!
            }
            estimates.append(percentile(p, of: pool.sorted())!)
        }
        estimates.sort()
        let fast = try #require(caseBootstrapPercentileIntervals([p], of: values, cases: cases, resamples: 300, seed: 11)?.first)
        #expect(fast.low == percentile(2.5, of: estimates) && fast.high == percentile(97.5, of: estimates), "p\(p): \(fast)")
    }
}

@Test("Several percentiles from one set of resamples give each single-percentile interval")
func bootstrapSeveralPercentiles() throws {
    let values: [Double] = (0..<83).map { (i: Int) -> Double in
        Double((i * 53 + 7) % 41) + 0.25 * Double(i % 3)
    }
    let ps: [Double] = [99, 50, 95, 90]
    let together = try #require(bootstrapPercentileIntervals(ps, of: values, resamples: 400, seed: 9))
    #expect(together.count == ps.count)
    for (p, interval) in zip(ps, together) {
        let alone = try #require(bootstrapPercentileInterval(p, of: values, resamples: 400, seed: 9))
        #expect(interval.low == alone.low && interval.high == alone.high, "p\(p): \(interval) vs \(alone)")
    }
    #expect(bootstrapPercentileIntervals(ps, of: Array(values.prefix(19))) == nil)
}
