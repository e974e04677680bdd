import Foundation

/// jqc-shell's own command-line options (SHELL.md "Invocation"). A bad option exits 64 before anything runs.
struct ShellOptions {
    /// How color is chosen.
    enum ColorMode: String { case auto, always, never }

    /// `--server`: `embedded`, `primary`, `secondary` or a URL; `nil` = the data directory's recorded one.
    var server: String?
    /// `--data-dir`, or `nil` for `$JQC_HOME`, `$XDG_DATA_HOME/jqc`, `~/.local/share/jqc`.
    var dataDirectory: String?
    /// `--json`: one JSON line per command on stdout.
    var json = false
    /// `--color`.
    var color: ColorMode = .auto
    /// `--script FILE`.
    var scriptFile: String?
    /// `-c "cmd; cmd"`.
    var commandString: String?
    /// `--admin-faults` (or `JQC_ADMIN_FAULTS=1`): the embedded server opens its `/__admin` endpoints.
    var adminFaults = false

    static let usage = """
        usage: jqc-shell [--server embedded|primary|secondary|URL] [--data-dir DIR] [--json] [--color auto|always|never]
                         [--admin-faults] [--script FILE | -c "cmd; cmd"]
        Commands are read from the prompt, from FILE, from -c, or from stdin when it is not a terminal.
        """

    /// An option error: the sentence to print before exiting 64.
    struct UsageError: Error, CustomStringConvertible { let description: String }

    /// Parses the arguments after the program name (`environment` supplies `JQC_ADMIN_FAULTS`).
    /// - Throws: ``UsageError`` for anything unknown, a missing value, or `--script` with `-c`.
    static func parse(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ShellOptions {
        var options = ShellOptions()
        options.adminFaults = environment["JQC_ADMIN_FAULTS"] == "1"
        var index = 0
        func value(_ name: String) throws -> String {
            guard index + 1 < arguments.count else { throw UsageError(description: "\(name) needs a value.") }
            index += 1
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            switch name {
            case "--server": options.server = try inline ?? value(name)
            case "--data-dir": options.dataDirectory = try inline ?? value(name)
            case "--json": options.json = true
            case "--admin-faults": options.adminFaults = true
            case "--color":
                let text = try inline ?? value(name)
                guard let mode = ColorMode(rawValue: text) else {
                    throw UsageError(description: "--color takes auto, always or never, not '\(text)'.")
                }
                options.color = mode
            case "--script": options.scriptFile = try inline ?? value(name)
            case "-c": options.commandString = try value(name)
            case "-h", "--help": throw UsageError(description: "")
            default:
                throw UsageError(description: "Unknown option '\(argument)'.")
            }
            index += 1
        }
        if options.scriptFile != nil && options.commandString != nil {
            throw UsageError(description: "Give either --script or -c, not both.")
        }
        if let server = options.server, ServerIdentity(text: server) == nil {
            throw UsageError(
                description: "--server takes embedded, primary, secondary or an http(s):// URL, not '\(server)'.")
        }
        return options
    }
}
