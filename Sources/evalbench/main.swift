import EvalBench
import EvalBenchCommandLine
import Foundation

// Large blocks mapped on their own, so that a big report's freed temporaries go back to the system.
mapLargeAllocations()

let invocation: Invocation
do throws(UsageError) {
    invocation = try Commands.tool.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail(error)
}

switch invocation {
case let .help(page), let .version(page):
    print(page)
    exit(ExitStatus.success.rawValue)
case let .command(parsed):
    let status: ExitStatus
    switch parsed.name {
    case Commands.run.name: status = await commandRun(parsed)
    case Commands.validate.name: status = commandValidate(parsed)
    case Commands.plan.name: status = await commandPlan(parsed)
    case Commands.backends.name: status = await commandBackends(parsed)
    case Commands.report.name: status = commandReport(parsed)
    case Commands.compare.name: status = commandCompare(parsed)
    case Commands.initialize.name: status = commandInit(parsed)
    case Commands.merge.name: status = commandMerge(parsed)
    case Commands.cache.name: status = await commandCache(parsed)
    default: preconditionFailure("'\(parsed.name)' is declared in Commands but has no implementation")
    }
    exit(status.rawValue)
}
