import Foundation
import JQCKit
import Synchronization

/// What a command handler works with: the options, the data directory, the output, and the engine
/// (built on first use, so offline tools never start a server or touch the network).
final class CommandContext: Sendable {
    let options: ShellOptions
    let dataDirectory: DataDirectory
    let output: ShellOutput
    let registry: CommandRegistry
    /// Set when the interactive loop should end after this command.
    let quitRequested = ManagedFlag()
    private let engineHolder: EngineHolder
    private let built = Mutex<ShellEngine?>(nil)
    private let typeahead = Mutex<(@Sendable () -> Int)?>(nil)

    init(options: ShellOptions, dataDirectory: DataDirectory, output: ShellOutput, registry: CommandRegistry) {
        self.options = options
        self.dataDirectory = dataDirectory
        self.output = output
        self.registry = registry
        self.engineHolder = EngineHolder(options: options, dataDirectory: dataDirectory, output: output)
    }

    /// The engine for this run: the server connection (starting the embedded dev server when that is the
    /// identity), the store, the session. Built once, on the first command that needs it.
    /// - Throws: a coded error with a sentence (``ShellError`` or the failing module's) when it cannot be built.
    func engine() async throws -> ShellEngine {
        let engine = try await engineHolder.engine()
        built.withLock { $0 = engine }
        return engine
    }

    /// The engine when a command has built it, read without waiting (Tab completion), else `nil`.
    var engineIfBuilt: ShellEngine? { built.withLock { $0 } }

    /// Sets how to drop input typed ahead of the prompt (the interactive loop's line editor); `nil` without one.
    func setTypeaheadDiscarder(_ discard: (@Sendable () -> Int)?) { typeahead.withLock { $0 = discard } }

    /// Drops what was typed ahead of the prompt and not read yet, before a secret is asked for on the terminal:
    /// a password typed too early is then neither run as a command nor written to the history file.
    /// - Returns: how many bytes were dropped (0 without a line editor).
    func discardTypeahead() -> Int { typeahead.withLock { $0 }?() ?? 0 }

    /// The engine when it has been built already (for shutdown), else `nil`.
    func builtEngine() async -> ShellEngine? { await engineHolder.current }
}

/// A thread-safe boolean.
final class ManagedFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Builds the engine at most once.
actor EngineHolder {
    private let options: ShellOptions
    private let dataDirectory: DataDirectory
    private let output: ShellOutput
    private(set) var current: ShellEngine?

    init(options: ShellOptions, dataDirectory: DataDirectory, output: ShellOutput) {
        self.options = options
        self.dataDirectory = dataDirectory
        self.output = output
    }

    func engine() async throws -> ShellEngine {
        if let current { return current }
        let engine = try await ShellEngine.start(options: options, dataDirectory: dataDirectory, output: output)
        current = engine
        return engine
    }
}
