// The loader fuzzer (LoaderFuzzer) at scale, run by scripts/fuzz: mutants of suites, configs
// and dataset files, each loaded; prints how many loaded, were refused, came without a
// location or took over 10 s. Exits 1 on any of the last two; a crash ends it with a signal.
import EvalBenchTestSupport
import Foundation

let arguments = CommandLine.arguments.dropFirst().compactMap { UInt64($0) }
let count = Int(arguments.first ?? 20_000)
let seed = arguments.dropFirst().first ?? 17
var fuzzer = LoaderFuzzer(seed: seed)
let started = Date()
let counts = fuzzer.run(count)
print("evalbench fuzz: seed \(seed), \(counts.mutants) mutants in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
print("  loaded:            \(counts.loaded)")
print("  refused:           \(counts.refused)")
print("  without location:  \(counts.withoutLocation.count)")
print("  path, no line:     \(counts.pathOnly) diagnostics")
print("  over 10 s (hangs): \(counts.hangs.count)")
print("  crashes:           0")
print(String(format: "  slowest:           %.3f s (mutant %d)", counts.slowest.seconds, counts.slowest.mutant))
for (mutant, message) in counts.withoutLocation.prefix(10) { print("  mutant \(mutant): \(message)") }
exit(counts.withoutLocation.isEmpty && counts.hangs.isEmpty ? 0 : 1)
