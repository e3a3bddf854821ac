/// `evalbench backends` asks the server at `baseURL` whether it answers at all.
extension GeminiBackend: ReachabilityProbing {
    package func unreachableReason() async -> String? { await Reachability.probe(baseURL, on: transport) }
}
