import Foundation
import JQCKit
import JQCNetwork

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
    /// `--ca-file PATH`: a certificate authority trusted beside the system store (else `$JQC_CA_FILE`, …).
    var caFile: String?
    /// `--allow-insecure-http`: plain http:// to hosts that are not loopback (warned before a password).
    var allowInsecureHTTP = false
    /// `--max-reply-mb N` (else `$JQC_MAX_REPLY_MB`): the largest JSON reply in MiB; `nil` = 32.
    var maxReplyMebibytes: Int?
    /// `--admin-faults` (or `JQC_ADMIN_FAULTS=1`): the embedded server opens its `/__admin` endpoints.
    var adminFaults = false
    /// `--version`: print this build's version and the API version it speaks, then exit 0 (nothing starts).
    var showVersion = false

    static let usage = """
        usage: jqc-shell [--server embedded|primary|secondary|URL] [--data-dir DIR] [--json] [--color auto|always|never]
                         [--ca-file PATH] [--allow-insecure-http] [--max-reply-mb N] [--admin-faults] [--version]
                         [--script FILE | -c "cmd; cmd" | COMMAND [ARGUMENT…]]
        Commands are read from the prompt, from FILE, from -c, from the words after the options (one command,
        e.g. 'jqc-shell --data-dir DIR sync --background'), or from stdin when it is not a terminal.
        """

    /// Whether this run is the background timer's `sync --background` (issue 15): no notification banners,
    /// and the embedded server is started without its admin endpoints.
    var isBackgroundSync: Bool {
        guard let commandString, let commands = try? CommandLineSplitter.commands(commandString, home: nil) else {
            return false
        }
        return commands == [["sync", "--background"]]
    }

    /// `words` as one command line for ``commandString``: each word single-quoted, so the shell's splitter
    /// gives back exactly these words (spaces, quotes and `;` included).
    static func commandLine(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }.joined(separator: " ")
    }

    /// An option error: the sentence to print before exiting 64.
    struct UsageError: CodedError {
        /// The sentence.
        let description: String
        /// The sentence.
        var message: String { description }
        /// `shell.bad_option`.
        var code: String { ShellError.Kind.badOption.code }
    }

    /// Parses the arguments after the program name (`environment` supplies `JQC_ADMIN_FAULTS`; `$JQC_MAX_REPLY_MB`
    /// stands in for `--max-reply-mb`).
    /// - Throws: ``UsageError`` for anything unknown, a missing value, or `--script` with `-c`.
    static func parse(
        _ arguments: [String], environment: [String: String] = ShellEnvironment.variables
    ) throws -> ShellOptions {
        var options = ShellOptions()
        options.adminFaults = environment["JQC_ADMIN_FAULTS"] == "1"
        var index = 0
        func value(_ name: String) throws -> String {
            // An option as the value is a missing value (`--data-dir -c …`), not a value.
            guard index + 1 < arguments.count,
                !arguments[index + 1].hasPrefix("--"), !["-c", "-h"].contains(arguments[index + 1])
            else { throw UsageError(description: "\(name) needs a value.") }
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
            case "--ca-file": options.caFile = try inline ?? value(name)
            case "--allow-insecure-http": options.allowInsecureHTTP = true
            case "--max-reply-mb": options.maxReplyMebibytes = try replyLimit(inline ?? value(name), from: name)
            case "--version": options.showVersion = true
            case "-h", "--help": throw UsageError(description: "")
            case _ where !argument.hasPrefix("-"):
                // The rest of the words are one command (`jqc-shell --data-dir DIR sync --background`).
                guard options.scriptFile == nil, options.commandString == nil else {
                    throw UsageError(description: "Give a command after the options, or --script or -c, not both.")
                }
                options.commandString = commandLine(Array(arguments[index...]))
                index = arguments.count
                continue
            default:
                throw UsageError(description: "Unknown option '\(argument)'.")
            }
            index += 1
        }
        if options.maxReplyMebibytes == nil, let text = environment["JQC_MAX_REPLY_MB"], !text.isEmpty {
            options.maxReplyMebibytes = try replyLimit(text, from: "JQC_MAX_REPLY_MB")
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

    /// A reply limit in whole MiB within 1…1024, from `--max-reply-mb` or `$JQC_MAX_REPLY_MB`.
    private static func replyLimit(_ text: String, from origin: String) throws -> Int {
        let range = TransferLimits.replyMebibytesRange
        guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text), range.contains(value) else {
            throw UsageError(
                description: "\(origin) takes a whole number of MiB from \(range.lowerBound) to \(range.upperBound), "
                    + "not '\(text)'.")
        }
        return value
    }
}

extension ShellOptions {
    /// The live transport's configuration from `--max-reply-mb`, `--ca-file` (with `$JQC_CA_FILE`,
    /// `$SSL_CERT_FILE`, `$CURL_CA_BUNDLE`, `$SSL_CERT_DIR`) and `--allow-insecure-http`; warnings go to stderr.
    func networkConfiguration(
        output: ShellOutput, environment: [String: String] = ShellEnvironment.variables
    ) -> CurlTransport.Configuration {
        CurlTransport.Configuration(
            limits: maxReplyMebibytes.flatMap(TransferLimits.jsonReplyLimit(mebibytes:)) ?? TransferLimits(),
            trust: TLSTrust.standard(caFile: caFile, environment: environment),
            allowInsecureHTTP: allowInsecureHTTP, warn: { output.err("warning: \($0)") })
    }
}
