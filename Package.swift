// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "evalbench",
    platforms: [.macOS(.v14), .iOS(.v17), .visionOS(.v1)],
    products: [
        .library(name: "EvalBench", targets: ["EvalBench"]),
        .executable(name: "evalbench", targets: ["evalbench"]),
    ],
    targets: [
        // epoll's declarations, which Glibc's Swift module lacks (empty elsewhere).
        .target(name: "CEvalBenchLinux"),
        .target(name: "EvalBench", dependencies: ["CEvalBenchLinux"]),
        // The declarative command-line parser: generic, no EvalBench dependency.
        .target(name: "EvalBenchCommandLine"),
        .executableTarget(name: "evalbench", dependencies: ["EvalBench", "EvalBenchCommandLine"]),
        // Fakes for tests and benchmarks only: never linked into the tool.
        .target(name: "EvalBenchTestSupport", dependencies: ["EvalBench"]),
        .executableTarget(
            name: "evalbench-bench",
            dependencies: ["EvalBench", "EvalBenchTestSupport"],
            path: "Benchmarks/evalbench-bench"
        ),
        .executableTarget(
            name: "evalbench-fuzz",
            dependencies: ["EvalBenchTestSupport"],
            path: "Benchmarks/evalbench-fuzz"
        ),
        .testTarget(
            name: "EvalBenchTests",
            dependencies: ["EvalBench", "EvalBenchTestSupport"],
            resources: [.copy("Resources/JSONSchemaTestSuite"), .copy("Resources/ProviderFixtures")]
        ),
        .testTarget(
            name: "EvalBenchCommandLineTests",
            dependencies: ["EvalBenchCommandLine", "EvalBench"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
