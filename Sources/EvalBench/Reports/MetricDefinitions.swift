/// The metric definitions of DESIGN.md ("Metrics"), as every report states them.
package enum MetricDefinitions {
    /// A Markdown list, one item per metric.
    package static let markdown = """
        - **Latency**: end − start, on a monotonic clock, where start is when the request was \
        handed to the transport and end is when the stream finished.
        - **TTFT** (time to first token): first streamed output of any kind (reasoning, text or \
        tool call) − start.
        - **TTFA** (time to first answer): first visible answer text − start; it differs from \
        TTFT when the model reasons first.
        - **TPOT** (time per output token): (end − first token) / (output tokens − 1), only when \
        output tokens > 1.
        - **Output tokens/s**: output tokens / (latency in seconds).
        - **Input tokens**: all input tokens of the request, cached ones included. \
        **Cached tokens**: input tokens served from the provider's prompt/KV cache. \
        **Output tokens**: all generated tokens, reasoning included. **Reasoning tokens**: \
        generated reasoning tokens, a subset of output tokens. A sum over the sent requests is \
        shown only when every one of them reported the figure: a sum with an unknown part is unknown, \
        shown as n/a with how many reported it (summary.csv has the counts). Errored requests keep the \
        usage their stream reported before failing (a refusal is billed).
        - **Cache hit**: Σ cached input tokens / Σ input tokens over the requests that reported \
        both: token-weighted, the ratio of sums rather than the mean of per-request ratios.
        - **Pass rate**: passed / (cases − skipped), where a case is one case run (one case × \
        repeat on one backend, reasoning level and variant). A case run that errored counts \
        against the pass rate; a skipped one is left out. A multi-turn case passes when every \
        turn passes and errors when any turn errors.
        - **Score**: Σ weight · passed / Σ weight over a case's assertions (weight 1 unless \
        given). A case with a `threshold` passes when its score over all its turns reaches the \
        threshold; without one, when every assertion passes.
        - **Named metrics**: each named assertion's passed / graded turns; errored and skipped \
        requests grade nothing.
        - **[low–high]**: the 95% interval of the pass rate, clustered by case: the Wilson score \
        interval with the number of distinct cases as n. The case is the unit of independence, so \
        repeats of a case are samples within it and do not narrow the interval; with one repeat \
        per case it is the Wilson interval over case runs.
        - **p50, p90, p95, p99**: nearest-rank percentiles (the value at rank ⌈p/100 · n⌉) over successful \
        requests, those that passed or failed; errored and skipped requests are left out, and so are \
        replayed ones, whose timing an earlier run measured.
        - **Goodput**: requests that succeeded within every target of the suite's `slo` / requests \
        that ran under it (errors count against it; skipped and replayed requests are left out).
        - **pass^N**: the cases whose every repeat passed; a case is **flaky** when 0 < k < N of its \
        N repeats passed.
        - **Cost**: Σ cost in US dollars from the backend's configured pricing over the sent requests, \
        errored ones included; n/a when it has none, or when any request's cost is unknown (a token \
        figure its prices need was not reported), with how many were priced.
        - **n/a**: not reported by the backend; never shown as 0. **—**: the case did not run there.

        """
}
