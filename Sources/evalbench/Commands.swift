import EvalBench
import EvalBenchCommandLine
import Foundation

/// Every option of every command, each declared once with its help and default; commands
/// share a declaration where an option means the same in each.
enum Options {
    static let config = OptionSpec.value("--config", "FILE", help: "The backend config.", default: "./evalbench.json")
    static let backend = OptionSpec.value(
        "--backend", "NAME", help: "Only this configured backend.",
        default: "the config's defaults.backends, else every backend", repeatable: true)
    static let reasoning = OptionSpec.value(
        "--reasoning", "LEVELS",
        help: "Reasoning levels as an axis of the matrix: none, light, moderate, deep. A level a backend cannot honour is a skipped result that says why.",
        default: "each suite's reasoning, else the config's defaults.reasoning, else none", repeatable: true,
        check: Values.checkReasoningLevels)
    static let repeatCount = OptionSpec.value(
        "--repeat", "N", help: "Run each case N times, as independent samples.", default: "each suite's repeat, else 1",
        check: Values.checkWholeNumber(minimum: 1))
    static let concurrency = OptionSpec.value(
        "--concurrency", "N", help: "Requests in flight at once across all backends.",
        default: "the config's defaults.concurrency, else \(RunDefaults().concurrency)", check: Values.checkWholeNumber(minimum: 1))
    static let out = OptionSpec.value(
        "--out", "DIR", help: "Where results.jsonl and the reports are written.",
        default: "the --resume DIR, else reports/<suite>-<timestamp>/")
    static let resume = OptionSpec.value(
        "--resume", "DIR", help: "Keep the case runs that finished in this earlier run and send only the rest.",
        default: "none; every case run is sent")
    static let caseID = OptionSpec.value("--case", "ID", help: "Only the case with this id.", default: "every case", repeatable: true)
    static let tag = OptionSpec.value("--tag", "TAG", help: "Only the cases with this tag.", default: "every case", repeatable: true)
    static let variant = OptionSpec.value("--variant", "NAME", help: "Only this prompt variant.", default: "every variant",
                                          repeatable: true)
    static let minPassRate = OptionSpec.value(
        "--min-pass-rate", "X",
        help: "Exit 1 unless the pass rate of every backend × level × variant reaches X (0.9 or 90%).",
        default: "each suite's gates.minPassRate, else every case must pass", check: Values.checkFraction)
    static let maxErrorRate = OptionSpec.value(
        "--max-error-rate", "X", help: "Exit 3 when more than X of the run's requests (0.1 or 10%) end in an error.",
        default: "each suite's gates.maxErrorRate, else no limit", check: Values.checkFraction)
    static let target = OptionSpec.value(
        "--target", "X", help: "The recommendation's pass-rate target (0.8 or 80%), above 0.",
        default: "each suite's target, else \(Values.percent(RecommendationSettings.defaultTarget))", check: Values.checkTarget)
    static let cache = OptionSpec.flag(
        "--cache",
        help: "Answer a request seen before from evalbench's response cache ($EVALBENCH_CACHE/responses, else ~/.cache/evalbench/responses); errors are never cached.")
    static let noCache = OptionSpec.flag("--no-cache", help: "Send every request, also with --watch, which uses the cache otherwise.")
    static let watch = OptionSpec.flag(
        "--watch", help: "Run, then run again whenever a suite, its dataset or the config changes, until Ctrl-C.")
    static let noProgress = OptionSpec.flag("--no-progress", help: "Print no progress on stderr.")
    static let quiet = OptionSpec.flag(
        "--quiet", help: "Print no summary at the end (headline, verdict, failures, report paths); errors still go to stderr.")
    static let resumeChanged = OptionSpec.flag(
        "--resume-changed", help: "With --resume, accept suites or config changed since that run, or another selection: send the changed and added cases again, and drop the deleted ones and the case runs this run does not plan.")
    static let allowEmpty = OptionSpec.flag(
        "--allow-empty", help: "Exit 0 even when no case ran (none recorded, or every one skipped); otherwise that run exits 1.")
    static let maxRequests = OptionSpec.value(
        "--max-requests", "N", help: "Refuse to start a run whose matrix (cases × variants × backends × levels × repeats × turns) sends more requests.",
        default: "\(RunLimits.defaultMaxRequests)", check: Values.checkWholeNumber(minimum: 1))
    static let baseline = OptionSpec.value(
        "--baseline", "DIR", help: "An earlier run's directory to compare with; a significant regression exits 1.",
        default: "none; the gates alone decide")
    static let maxPassRateDrop = OptionSpec.value(
        "--max-pass-rate-drop", "X", help: "The largest pass-rate drop against the baseline (0.05 or 5%) that is not a regression.",
        default: Values.percent(ComparisonThresholds().maxPassRateDrop), check: Values.checkFraction)
    static let maxLatencyIncrease = OptionSpec.value(
        "--max-latency-increase", "X", help: "The largest latency p50 increase (0.2 or 20%) that is not a regression.",
        default: ComparisonThresholds().maxLatencyIncrease.map(Values.percent) ?? "latency is not gated",
        check: Values.checkLatencyIncrease)
    static let alpha = OptionSpec.value(
        "--alpha", "A", help: "A change past its threshold is a regression only when its p-value is below A.",
        default: "\(ComparisonThresholds().alpha)", check: Values.checkAlpha)
    static let compareOut = OptionSpec.value("--out", "DIR", help: "Where compare.md and compare.csv are written.",
                                             default: "CURRENT_DIR")
    static let shard = OptionSpec.value(
        "--shard", "K/N",
        help: "Run only part K of N (1 ≤ K ≤ N ≤ \(RunLimits.maxShards)): the cases whose hash of suite/case id falls in it, each with all its repeats, levels, variants and backends; `evalbench merge` combines the parts. auto takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) and N from --shards.",
        default: "every case", check: Values.checkShard)
    static let shards = OptionSpec.value(
        "--shards", "N", help: "The number of shards, for --shard auto (at most \(RunLimits.maxShards)).", default: "none",
        check: Values.checkShardCount)
    static let mergeOut = OptionSpec.value("--out", "DIR", help: "Where the merged results.jsonl and reports are written.",
                                           default: "merged")
    static let allowPartial = OptionSpec.flag(
        "--allow-partial", help: "Merge the shards given even when some are missing or unfinished, saying which cases are missing.")
    static let noStart = OptionSpec.flag("--no-start", help: "Start no managed server and check no availability.")
    static let checkSecrets = OptionSpec.flag(
        "--check-secrets",
        help: "Also check that the API key variable (apiKeyEnv) of every backend the run would use is set, as run does; without it a CI lint job needs no secrets.")
}

/// The commands, declared once; `evalbench help`, each help page, the synopses and the
/// argument errors come from these declarations.
enum Commands {
    static let suites = ArgumentSpec("SUITE", help: "A suite file (evalbench.suite/1).", repeating: true)

    static let run = CommandSpec(
        name: "run", abstract: "Run suites on backends; write the results and reports.",
        discussion: "Every finished request is appended to results.jsonl at once, so an interrupted run keeps its results (exit 130) and --resume finishes it.",
        arguments: [suites],
        options: [Options.config, Options.backend, Options.reasoning, Options.repeatCount, Options.concurrency, Options.out,
                  Options.resume, Options.resumeChanged.requiring(Options.resume), Options.caseID, Options.tag, Options.variant, Options.minPassRate, Options.maxErrorRate,
                  Options.target, Options.cache, Options.noCache, Options.watch, Options.noProgress, Options.quiet, Options.allowEmpty,
                  Options.maxRequests, Options.baseline,
                  Options.maxPassRateDrop.requiring(Options.baseline), Options.maxLatencyIncrease.requiring(Options.baseline),
                  Options.alpha.requiring(Options.baseline), Options.shard, Options.shards.requiring(Options.shard)],
        conflicts: [(Options.cache, Options.noCache)])
    static let merge = CommandSpec(
        name: "merge", abstract: "Merge a run's shards (run --shard) into one report.",
        discussion: "Refuses shards of different suites, configs, matrices, splits or evalbench versions, shards that overlap or hold results of case runs their plan does not have, and shards that leave case runs out (naming them). Writes the reports and applies the gates (and --baseline) as one run of the same work would, with the same exit codes.",
        arguments: [ArgumentSpec("DIR", help: "A shard's directory (its --out).", repeating: true)],
        options: [Options.mergeOut, Options.allowPartial, Options.minPassRate, Options.maxErrorRate, Options.target, Options.allowEmpty, Options.baseline,
                  Options.maxPassRateDrop.requiring(Options.baseline), Options.maxLatencyIncrease.requiring(Options.baseline),
                  Options.alpha.requiring(Options.baseline), Options.quiet])
    static let validate = CommandSpec(
        name: "validate", abstract: "Load and check suites and config; send nothing.",
        arguments: [suites], options: [Options.config, Options.backend, Options.checkSecrets])
    static let plan = CommandSpec(
        name: "plan", abstract: "Show the matrix, reasoning mapping and context fit.",
        discussion: "The expanded matrix of case runs, how each backend sends each reasoning level, and the context-fit pre-flight: each case's largest turn against each backend's window. Sends nothing, starts no managed server and needs no API keys.",
        arguments: [suites],
        options: [Options.config, Options.backend, Options.reasoning, Options.repeatCount, Options.caseID, Options.tag,
                  Options.variant, Options.maxRequests, Options.shard, Options.shards.requiring(Options.shard)])
    static let backends = CommandSpec(
        name: "backends", abstract: "Show backends: availability, concurrency, reasoning.",
        discussion: "Each configured backend with its kind and model, whether it is available (a managed server is started to find out), its concurrency and how it sends each reasoning level. Exits 3 when one is unavailable.",
        options: [Options.config, Options.noStart])
    static let report = CommandSpec(
        name: "report", abstract: "Rewrite a run's reports from its results.jsonl.",
        arguments: [ArgumentSpec("DIR", help: "The run's directory (its --out).")], options: [Options.target])
    static let compare = CommandSpec(
        name: "compare", abstract: "Compare two runs: flips and significant changes.",
        discussion: "The case runs that flipped, and the pass-rate and latency changes of each backend × level × variant with their significance. Writes compare.md and compare.csv; exits 1 on a significant regression.",
        arguments: [ArgumentSpec("BASELINE_DIR", help: "The earlier run's directory."),
                    ArgumentSpec("CURRENT_DIR", help: "The later run's directory.")],
        options: [Options.compareOut, Options.maxPassRateDrop, Options.maxLatencyIncrease, Options.alpha, Options.quiet])
    static let initialize = CommandSpec(
        name: "init", abstract: "Write a starter config and suite into this folder.",
        discussion: "Writes evalbench.json (the managed local model), evalbench.examples.json (an example of every backend kind), evals/starter.json (a single-turn, a multi-turn and a structured case) and the chat template the local model uses. Writes nothing when any of them exists.")
    static let cache = CommandSpec(
        name: "cache", abstract: "Clear evalbench's response cache (run --cache).",
        arguments: [ArgumentSpec("ACTION", help: "clear: remove every stored response.", choices: ["clear"])])

    static let tool = ToolSpec(
        name: "evalbench", abstract: "Run JSON eval suites against language-model backends and write reports.",
        version: EvalBenchVersion.current, commands: [run, validate, plan, backends, report, compare, merge, initialize, cache],
        epilogue: "EXIT CODES:\n" + ExitStatus.allCases.map { "  \(String($0.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0))\($0.meaning)" }
            .joined(separator: "\n"),
        suggest: suggestion(for:among:))
}
