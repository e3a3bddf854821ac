import Foundation
import Testing
@testable import EvalBench

@Suite("Timed samples in 4 bytes each, exact")
struct TimedSamplesTests {
    @Test("Whole microseconds are held compactly and read back bit for bit, also from their JSON text")
    func wholeMicroseconds() throws {
        var generator = SplitMix64(seed: 7)
        var values: [Double] = [0, 0.001, 1, 99.999, 100, 4_294_967.295]
        for _ in 0..<5_000 { values.append(Double(generator.next() % 4_294_967_296) / 1000) }
        var samples = TimedSamples()
        for value in values { samples.append(value) }
        #expect(samples.isCompact && samples.count == values.count)
        #expect(zip(samples, values).allSatisfy { $0.bitPattern == $1.bitPattern })
        // What results.jsonl holds is the shortest text of each value; read back, it is held compactly too.
        let reread = try values.map { try #require(Double("\($0)")) }
        #expect(TimedSamples(reread).isCompact && TimedSamples(reread) == samples)
    }

    @Test("The first sample that is not a whole microsecond in range moves every sample to 8 bytes, in order", arguments: [
        1.0001, 0.1 + 0.2, -0.0, -1, 4_294_967.296, .infinity, .nan, 1e300, .leastNonzeroMagnitude,
    ])
    func fallsBack(odd: Double) {
        let before: [Double] = [5.5, 1.25, 3]
        var samples = TimedSamples(before)
        #expect(samples.isCompact)
        samples.append(odd)
        samples.append(2.5)
        #expect(!samples.isCompact)
        let expected = before + [odd, 2.5]
        #expect(samples.count == 5 && zip(samples, expected).allSatisfy { $0.bitPattern == $1.bitPattern })
    }

    @Test("Sorted, percentiles are those of the same values as an array, held compactly or not")
    func sortedPercentiles() {
        var generator = SplitMix64(seed: 11)
        for compact in [true, false] {
            let values = (0..<1_001).map { index in
                let micros = Double(generator.next() % 300_000) / 1000
                return compact || index != 500 ? micros : micros + 1e-7
            }
            var samples = TimedSamples(values)
            samples.sort()
            #expect(samples.isCompact == compact)
            #expect(samples.array == values.sorted())
            for p in [0.0, 50, 90, 95, 99, 100] {
                #expect(percentile(p, of: samples) == percentile(p, of: values.sorted()))
            }
        }
    }

    @Test("Shrunk to fit, samples keep their values and order, held compactly or not")
    func shrinkToFit() {
        for odd in [false, true] {
            var samples = TimedSamples()
            for index in 0..<1_000 { samples.append(index == 999 && odd ? 0.1 + 0.2 : Double(1_000 - index) / 4) }
            let before = samples.array
            samples.shrinkToFit()
            #expect(samples.array.map(\.bitPattern) == before.map(\.bitPattern) && samples.isCompact == !odd)
            samples.append(7)
            #expect(samples.count == 1_001 && samples.last == 7)
        }
    }

    @Test("Sorted samples find the first position of a value by its bits, held compactly or not")
    func firstPosition() {
        let compact = TimedSamples([0, 1.5, 1.5, 1.5, 2.25, 7])
        let wide = TimedSamples([-0.0, 0, 1.5, 1.5, 1.5, 2.25, 7, 7.0000001])
        #expect(compact.isCompact && !wide.isCompact)
        #expect(compact.firstPosition(ofSorted: 1.5) == 1 && wide.firstPosition(ofSorted: 1.5) == 2)
        #expect(compact.firstPosition(ofSorted: 7) == 5 && compact.firstPosition(ofSorted: 0) == 0)
        #expect(compact.firstPosition(ofSorted: 2) == nil && compact.firstPosition(ofSorted: 1.5000001) == nil)
        #expect(compact.firstPosition(ofSorted: -0.0) == nil && compact.firstPosition(ofSorted: 8) == nil)
        #expect(wide.firstPosition(ofSorted: -0.0) == 0 && wide.firstPosition(ofSorted: 7.0000001) == 7)
        #expect(compact.sameSample(1, 3) && !compact.sameSample(3, 4) && wide.sameSample(2, 4) && !wide.sameSample(0, 1))
    }

    @Test("Equal samples are equal however they are held")
    func equality() {
        var compact: TimedSamples = [1, 2]
        var wide: TimedSamples = [1.00001]
        wide = TimedSamples(wide.dropFirst())
        wide.append(1)
        wide.append(2)
        #expect(compact.isCompact && compact == wide)
        compact.append(3)
        #expect(compact != wide && TimedSamples() == [])
    }

    @Test("The stopwatch gives whole microseconds, rounded half up")
    func stopwatchRounds() {
        let watch = Stopwatch(startNanos: 1_000_000)
        #expect(watch.ms(atNanos: 1_000_000) == 0)
        #expect(watch.ms(atNanos: 1_000_499) == 0)
        #expect(watch.ms(atNanos: 1_000_500) == 0.001)
        #expect(watch.ms(atNanos: 1_000_000 + 123_456_789) == 123.457)
        #expect(watch.ms(atNanos: 999_999) == 0)
        #expect(TimedSamples.microseconds(exactly: watch.ms(atNanos: 1_000_000 + 71 * 60 * 1_000_000_000)) != nil)
        #expect(TimedSamples.microseconds(exactly: Stopwatch().ms()) != nil)
    }

    @Test("An aggregate's groups hold recorded timings in 4 bytes, and a group with one that is not keeps it exactly")
    func aggregateHoldsCompactly() throws {
        var results: [RequestResult] = []
        for index in 0..<50 {
            results.append(fixtureResult(caseID: "c\(index)", backend: "fast", status: .pass, latencyMs: Double(1_000 + index * 37) / 1000,
                                         ttftMs: Double(index) / 1000))
            results.append(fixtureResult(caseID: "c\(index)", backend: "odd", status: .pass,
                                         latencyMs: index == 7 ? 12.3456789 : Double(index), ttftMs: Double(index)))
        }
        let groups = RunAggregate(results).groups
        let fast = try #require(groups.first { $0.group.backend == "fast" })
        let odd = try #require(groups.first { $0.group.backend == "odd" })
        #expect(fast.timedLatenciesMs.isCompact && fast.timedTTFTsMs.isCompact)
        #expect(fast.timedLatenciesMs.array == results.filter { $0.backend == "fast" }.compactMap(\.timing?.latencyMs).sorted())
        #expect(!odd.timedLatenciesMs.isCompact && odd.timedTTFTsMs.isCompact)
        #expect(odd.timedLatenciesMs.contains(12.3456789) && odd.latencyP50Ms == 24)
    }
}
