// swift-tools-version: 6.0
// An app's own backend, evaluated through evalbench's public library API only: this package
// depends on evalbench by path, as an app's test target would. `swift run` prints the headline
// and exits with the run's exit status. CI builds and runs it (scripts/test).
import PackageDescription

let package = Package(
    name: "custom-backend",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "evalbench", path: "../..")],
    targets: [
        .executableTarget(name: "custom-backend", dependencies: [.product(name: "EvalBench", package: "evalbench")]),
    ],
    swiftLanguageModes: [.v6]
)
