import EvalBench
import EvalBenchCommandLine
import Testing

/// A small tool declared the way evalbench declares its commands.
private enum Demo {
    static let out = OptionSpec.value("--out", "DIR", help: "Where results go.", default: "reports/<suite>/")
    static let backend = OptionSpec.value("--backend", "NAME", help: "Only this backend.", default: "every backend",
                                          repeatable: true)
    static let repeatCount = OptionSpec.value("--repeat", "N", help: "Run each case N times.", default: "1") { text in
        Int(text).map { $0 >= 1 } == true ? nil : "must be a whole number >= 1, got '\(text)'"
    }
    static let cache = OptionSpec.flag("--cache", help: "Answer from the cache.")
    static let noCache = OptionSpec.flag("--no-cache", help: "Send every request.")
    static let quiet = OptionSpec.flag("--quiet", help: "Print nothing.")
    static let baseline = OptionSpec.value("--baseline", "DIR", help: "An earlier run to compare with.", default: "none")
    static let alpha = OptionSpec.value("--alpha", "A", help: "The significance level.", default: "0.05")

    static let run = CommandSpec(
        name: "run", abstract: "Run suites.", discussion: "Runs every case of every suite.",
        arguments: [ArgumentSpec("SUITE", help: "A suite file.", repeating: true)],
        options: [out, backend, repeatCount, cache, noCache, quiet, baseline, alpha.requiring(baseline)],
        conflicts: [(cache, noCache)])
    static let compare = CommandSpec(
        name: "compare", abstract: "Compare two runs.",
        arguments: [ArgumentSpec("BASELINE_DIR", help: "The earlier run."), ArgumentSpec("CURRENT_DIR", help: "The later run.")],
        options: [alpha])
    static let cacheCommand = CommandSpec(
        name: "cache", abstract: "Manage the cache.",
        arguments: [ArgumentSpec("ACTION", help: "clear: empty it.", choices: ["clear"])])
    static let list = CommandSpec(name: "list", abstract: "List the backends.")

    static let tool = ToolSpec(name: "demo", abstract: "Runs demos.", version: "1.2.3",
                               commands: [run, compare, cacheCommand, list], epilogue: "EXIT CODES:\n  0    success",
                               suggest: suggestion(for:among:))
}

private func parsed(_ words: [String]) throws -> ParsedCommand {
    guard case let .command(command) = try Demo.tool.parse(words) else {
        Issue.record("\(words) did not parse as a command")
        return ParsedCommand(name: "")
    }
    return command
}

private func usageError(_ words: [String]) -> UsageError? {
    do {
        _ = try Demo.tool.parse(words)
        return nil
    } catch {
        return error
    }
}

/// The text with every run of spaces and line breaks as one space, so that a wrapped line
/// still reads as one phrase.
private func flattened(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
}

@Suite("The declarative command-line parser")
struct CommandLineParserTests {
    @Test("a command's help page describes every argument and option with its default, and its synopsis")
    func commandHelp() throws {
        for command in Demo.tool.commands {
            let page = Demo.tool.help(for: command)
            let flat = flattened(page)
            #expect(page.hasPrefix("OVERVIEW: \(command.abstract)"))
            #expect(flat.contains("USAGE: demo \(command.name)"), "\(page)")
            for argument in command.arguments { #expect(flat.contains(flattened(argument.help)), "\(argument.name): \(page)") }
            for option in command.options {
                #expect(flat.contains(option.valueName.map { "\(option.name) \($0) \(option.help)" } ?? "\(option.name) \(option.help)"),
                        "\(option.name): \(page)")
                if let defaultValue = option.defaultValue { #expect(flat.contains("(default: \(defaultValue))"), "\(option.name): \(page)") }
            }
            #expect(flat.contains("-h, --help Show help information."))
            #expect(page.split(separator: "\n").allSatisfy { $0.count <= 80 }, "80 columns: \(page)")
        }
        let run = flattened(Demo.tool.help(for: Demo.run))
        #expect(run.contains("USAGE: demo run SUITE... [--out DIR] [--backend NAME]... [--repeat N] [--cache | --no-cache] [--quiet]"), "\(run)")
        #expect(run.contains("Repeatable, and takes comma-separated lists. (default: every backend)"))
        #expect(run.contains("--alpha A The significance level. Only with --baseline. (default: 0.05)"))
        #expect(run.contains("Runs every case of every suite."))
    }

    @Test("the tool's help lists every command with its one line, --version, --help and the epilogue")
    func toolHelp() throws {
        let page = Demo.tool.help()
        for command in Demo.tool.commands { #expect(page.contains("  \(command.name)") && page.contains(command.abstract)) }
        #expect(page.contains("  help                    Show help for a command."))
        #expect(page.contains("--version") && page.contains("-h, --help"))
        #expect(page.hasSuffix("EXIT CODES:\n  0    success"))
        for words in [["help"], ["--help"], ["-h"]] { #expect(try Demo.tool.parse(words) == .help(page)) }
        #expect(try Demo.tool.parse(["--version"]) == .version("demo 1.2.3"))
    }

    @Test("help COMMAND, COMMAND --help and COMMAND -h give the command's page, whatever else the line holds, but not after --")
    func helpRequests() throws {
        let page = Invocation.help(Demo.tool.help(for: Demo.run))
        #expect(try Demo.tool.parse(["help", "run"]) == page)
        #expect(try Demo.tool.parse(["run", "--help"]) == page)
        #expect(try Demo.tool.parse(["run", "-h"]) == page)
        #expect(try Demo.tool.parse(["run", "--out", "--bogus", "-h"]) == page)
        #expect(try parsed(["run", "a", "--", "--help"]).arguments == ["a", "--help"])
        #expect(usageError(["help", "rn"])?.message == "unknown command 'rn'; did you mean 'run'?")
        #expect(usageError(["help", "run", "compare"])?.message == "unexpected argument 'compare': help takes one COMMAND")
    }

    @Test("-- ends the options: what follows is an argument even when it starts with a dash")
    func doubleDash() throws {
        let command = try parsed(["run", "--quiet", "--", "--out", "-x.json", "--"])
        #expect(command.arguments == ["--out", "-x.json", "--"])
        #expect(command.flags == ["--quiet"])
        #expect(command.values.isEmpty)
    }

    @Test("a value that looks like an option is refused with what to write instead; =, a lone dash and negative numbers are values")
    func optionLookingValue() throws {
        let error = try #require(usageError(["run", "--out", "--quiet", "x.json"]))
        #expect(error.command == "run")
        #expect(error.message == "--out needs a value (DIR), but the next argument '--quiet' is an option; give the value after --out, or write --out=DIR for one that starts with '-'")
        #expect(usageError(["run", "x.json", "--out"])?.message == "--out needs a value: --out DIR")
        #expect(try parsed(["run", "x.json", "--out=--quiet"]).value(Demo.out) == "--quiet")
        #expect(try parsed(["run", "-", "--out", "-"]).arguments == ["-"])
        #expect(usageError(["run", "x.json", "--repeat", "-2"])?.message == "--repeat must be a whole number >= 1, got '-2'")
    }

    @Test("missing, extra and unknown positional arguments are errors")
    func positionals() throws {
        #expect(usageError(["run"])?.message == "run needs SUITE...; missing SUITE")
        #expect(usageError(["compare", "a"])?.message == "compare needs BASELINE_DIR CURRENT_DIR; missing CURRENT_DIR")
        #expect(usageError(["compare", "a", "b", "c"])?.message == "unexpected argument 'c': compare takes BASELINE_DIR CURRENT_DIR")
        #expect(usageError(["list", "extra"])?.message == "unexpected argument 'extra': list takes no arguments")
        #expect(usageError(["cache", "claer"])?.message == "unknown ACTION 'claer' for 'cache'; did you mean 'clear'? (cache takes clear)")
        #expect(try parsed(["compare", "a", "--alpha", "0.1", "b"]).arguments == ["a", "b"])
        #expect(try parsed(["run", "a", "b", "c"]).arguments == ["a", "b", "c"])
    }

    @Test("a mistyped command or option gets a did-you-mean; an unknown one without a close match gets none")
    func didYouMean() throws {
        #expect(usageError(["rn"])?.message == "unknown command 'rn'; did you mean 'run'?")
        #expect(usageError(["frobnicate"])?.message == "unknown command 'frobnicate'")
        #expect(usageError(["--verison"])?.message == "unknown option '--verison'; did you mean '--version'?")
        #expect(usageError(["run", "a", "--otu", "x"])?.message == "unknown option '--otu' for 'run'; did you mean '--out'?")
        #expect(usageError(["run", "a", "--backends=x"])?.message == "unknown option '--backends' for 'run'; did you mean '--backend'?")
        #expect(usageError(["compare", "a", "b", "--out", "x"])?.message == "unknown option '--out' for 'compare'")
        #expect(usageError(["run", "a", "-q"])?.message == "unknown option '-q' for 'run'")
        #expect(usageError([])?.message == "no command given; the commands are run, compare, cache, list, help")
    }

    @Test("--opt=value, repeated options and comma lists; a single-value option given twice keeps the last")
    func values() throws {
        let command = try parsed(["run", "s.json", "--backend", "a, b", "--backend=c", "--backend", ",d,", "--out=first", "--out", "second"])
        #expect(command.list(Demo.backend) == ["a", "b", "c", "d"])
        #expect(command.values["--backend"] == ["a, b", "c", ",d,"])
        #expect(command.value(Demo.out) == "second")
        #expect(command.values["--out"] == ["first", "second"])
        // An empty value would be the current directory, or no filter at all.
        #expect(usageError(["run", "s.json", "--out="])?.message.hasPrefix("--out needs a value, got an empty one") == true)
        #expect(usageError(["run", "s.json", "--out", " "])?.message.hasPrefix("--out needs a value, got an empty one") == true)
        #expect(usageError(["run", "s.json", "--backend", ","])?.message == "--backend ',' names nothing; give one or more names, comma-separated")
        #expect(!command.has(Demo.repeatCount))
        #expect(usageError(["run", "s.json", "--quiet=yes"])?.message == "--quiet takes no value; give --quiet alone")
        #expect(try parsed(["run", "s.json", "--repeat=3", "--quiet"]).value(Demo.repeatCount) == "3")
        #expect(usageError(["run", "s.json", "--repeat", "zero"])?.message == "--repeat must be a whole number >= 1, got 'zero'")
    }

    @Test("options that contradict each other, and an option without the one it needs, are refused")
    func combinations() throws {
        #expect(usageError(["run", "s.json", "--cache", "--no-cache"])?.message == "--cache and --no-cache contradict each other; give one")
        #expect(usageError(["run", "s.json", "--alpha", "0.1"])?.message == "--alpha applies only with --baseline DIR; give --baseline too")
        #expect(try parsed(["run", "s.json", "--alpha", "0.1", "--baseline", "b"]).value(Demo.alpha) == "0.1")
        #expect(try parsed(["compare", "a", "b", "--alpha", "0.1"]).value(Demo.alpha) == "0.1", "compare declares --alpha without the requirement")
    }

    @Test("an error prints as error:, one usage line and where the help is; a long synopsis collapses to [options]")
    func errorText() throws {
        let runError = try #require(usageError(["run", "--out", "--quiet", "x.json"]))
        let lines = Demo.tool.errorText(runError).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("error: --out needs a value"))
        #expect(lines[1] == "usage: demo run SUITE... [options]")
        #expect(lines[2] == "see 'demo help run'")
        #expect(Demo.tool.usageLine(for: "compare") == "demo compare BASELINE_DIR CURRENT_DIR [--alpha A]")
        let unknown = try #require(usageError(["rn"]))
        #expect(Demo.tool.errorText(unknown) == "error: unknown command 'rn'; did you mean 'run'?\nusage: demo COMMAND [options]\nsee 'demo help'")
        let help = try #require(usageError(["help", "a", "b"]))
        #expect(Demo.tool.errorText(help).hasSuffix("usage: demo help [COMMAND]\nsee 'demo help'"))
    }
}
