// The machine's speed at the moment of a bench run, so that figures from different hours can
// be told apart from changes in the code: this VM has run the same build 1.4 times slower in
// one hour than in another (docs/performance.md). A fixed single-thread workload of the kinds
// evalbench's hot paths are made of (sorting Doubles, hashing strings into a dictionary,
// appending bytes), timed as wall clock, median of 5.
import EvalBench
import Foundation

enum MachineSpeed {
    /// Wall ms of one pass of the workload; its result is returned too, so it is not optimized away.
    static func onePass() -> (ms: Double, checksum: Int) {
        let clock = Stopwatch()
        // The same values on every machine.
        var generator = SplitMix64(seed: 1)
        func next() -> UInt64 { generator.next() }
        var numbers = (0..<300_000).map { _ in Double(next() % 1_000_000) / 7 }
        numbers.sort()
        var counts: [String: Int] = [:]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 20)
        for index in 0..<100_000 {
            let key = "case-\(next() % 50_000)"
            counts[key, default: 0] += 1
            if index % 4 == 0 { bytes.append(contentsOf: key.utf8) }
        }
        return (clock.ms(), counts.count &+ bytes.count &+ Int(numbers[numbers.count / 2]))
    }

    /// The median wall ms of 5 passes after one to warm up.
    static func medianMs() -> Double {
        var checksum = onePass().checksum
        var times: [Double] = []
        for _ in 0..<5 {
            let pass = onePass()
            times.append(pass.ms)
            checksum &+= pass.checksum
        }
        precondition(checksum != 0)
        return times.sorted()[times.count / 2]
    }

    static func printLine() {
        line("machine speed: fixed 1-thread workload", String(format: "%.1f ms", medianMs()),
             "lower is faster; compare runs")
    }
}
