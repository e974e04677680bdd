import Foundation
import JQCKit

/// The `jqc-devserver` command line, parsed (SHELL.md, Invocation).
public struct DevServerOptions: Sendable {
    /// The server configuration the options describe.
    public var configuration: DevServerConfiguration
    /// `--help` was given.
    public var showHelp = false

    /// The defaults: 127.0.0.1, any free port, `./jqc-devserver-data`, the demo seed, no admin.
    public init() {
        configuration = DevServerConfiguration(
            port: 0,
            dataDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .appendingPathComponent("jqc-devserver-data", isDirectory: true))
    }

    /// Parses arguments (without the program name).
    /// - Throws: ``DevServerError`` (`badConfiguration`) with a sentence naming the bad option.
    public static func parse(_ arguments: [String]) throws -> DevServerOptions {
        var options = DevServerOptions()
        var index = 0
        func value(_ option: String) throws -> String {
            index += 1
            guard index < arguments.count else {
                throw DevServerError(.badConfiguration, "The option \(option) needs a value.")
            }
            return arguments[index]
        }
        func seconds(_ option: String) throws -> Double {
            let text = try value(option)
            guard let number = Double(text), number > 0, number.isFinite else {
                throw DevServerError(
                    .badConfiguration,
                    "\(option) must be a positive number of seconds, not '\(text)'.")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--host":
                let host = try value(argument)
                var address = in_addr()
                guard inet_pton(AF_INET, host, &address) == 1 else {
                    throw DevServerError(.badConfiguration, "--host must be an IPv4 address such as 127.0.0.1.")
                }
                options.configuration.host = host
            case "--port":
                let text = try value(argument)
                guard let port = Int(text), (0...65_535).contains(port) else {
                    throw DevServerError(.badConfiguration, "--port must be a number from 0 to 65535, not '\(text)'.")
                }
                options.configuration.port = port
            case "--data-dir":
                options.configuration.dataDirectory = URL(fileURLWithPath: try value(argument), isDirectory: true)
            case "--seed":
                let text = try value(argument)
                if text == "demo" {
                    options.configuration.seed = .demo
                } else if text == "none" {
                    options.configuration.seed = .none
                } else {
                    guard FileManager.default.fileExists(atPath: text) else {
                        throw DevServerError(
                            .badConfiguration,
                            "--seed must be demo or an existing file; '\(text)' is neither.")
                    }
                    options.configuration.seed = .file(URL(fileURLWithPath: text))
                }
            case "--today":
                let text = try value(argument)
                guard let day = CalendarDay(text) else {
                    throw DevServerError(.badConfiguration, "--today must be a day as YYYY-MM-DD, not '\(text)'.")
                }
                options.configuration.today = day
            case "--admin":
                options.configuration.admin = true
            case "--no-etags":
                options.configuration.etags = false
            case "--access-ttl":
                options.configuration.accessTTL = try seconds(argument)
            case "--refresh-ttl":
                options.configuration.refreshTTL = try seconds(argument)
            case "--help", "-h":
                options.showHelp = true
            default:
                throw DevServerError(.badConfiguration, "The option '\(argument)' is not known.")
            }
            index += 1
        }
        return options
    }
}
