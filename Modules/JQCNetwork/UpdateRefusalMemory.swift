import Foundation
import JQCKit
import Synchronization

/// Remembers that the server refused a build with 426, so later requests from the same build are
/// refused locally until the build changes (seed 004 `RequestPolicy`; CONTRACT.md "(ext)").
public protocol UpdateRefusalMemory: Sendable {
    /// Whether `build` was refused.
    func isRefused(build: String) -> Bool
    /// Records that `build` was refused.
    /// - Throws: the store's error when it cannot be written (the refusal still holds for this run).
    func remember(build: String) throws
    /// Forgets any refusal.
    /// - Throws: the store's error when it cannot be written.
    func clear() throws
}

/// A refusal memory in memory only (tests).
public final class InMemoryUpdateRefusalMemory: UpdateRefusalMemory {
    private let refused = Mutex<String?>(nil)
    /// An empty memory.
    public init() {}
    /// Whether `build` was refused; see ``UpdateRefusalMemory/isRefused(build:)``.
    public func isRefused(build: String) -> Bool { refused.withLock { $0 == build } }
    /// Records that `build` was refused.
    public func remember(build: String) throws { refused.withLock { $0 = build } }
    /// Forgets what is stored.
    public func clear() throws { refused.withLock { $0 = nil } }
}

/// A refusal memory in a file (`<data-dir>/update-refused`, mode 0600) holding the refused build
/// string; it survives restarts and stops applying as soon as the build string changes.
public final class FileUpdateRefusalMemory: UpdateRefusalMemory {
    /// The file.
    public let url: URL
    private let cached: Mutex<String??> = Mutex(nil)

    /// A memory kept at `url` (its directory must exist).
    public init(url: URL) { self.url = url }

    /// Whether `build` was refused; see ``UpdateRefusalMemory/isRefused(build:)``.
    public func isRefused(build: String) -> Bool {
        let stored = cached.withLock { cached -> String? in
            if let known = cached { return known }
            let text = (try? String(contentsOf: url, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let value = (text?.isEmpty ?? true) ? nil : text
            cached = .some(value)
            return value
        }
        return stored == build
    }

    /// - Throws: `AtomicFile.WriteError`.
    public func remember(build: String) throws {
        cached.withLock { $0 = .some(build) }
        try AtomicFile.write(Data((build + "\n").utf8), to: url, permissions: 0o600)
    }

    /// - Throws: `CocoaError` when the file exists and cannot be removed.
    public func clear() throws {
        cached.withLock { $0 = .some(nil) }
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}

/// The build a request names: `X-JQC-Client: <app>/<version>` and `X-JQC-API-Version` (seed 004;
/// CONTRACT.md "(ext)").
public struct ClientIdentity: Sendable, Hashable {
    /// The application name (`jqc-shell`).
    public var app: String
    /// The build's version string; a 426 refusal is remembered for exactly this value.
    public var version: String
    /// The API version spoken (`1`).
    public var apiVersion: Int

    /// An identity; `apiVersion` defaults to 1.
    public init(app: String = "jqc-shell", version: String, apiVersion: Int = 1) {
        self.app = app
        self.version = version
        self.apiVersion = apiVersion
    }

    /// `<app>/<version>`, the value of `X-JQC-Client` and the key of the refusal memory.
    public var build: String { "\(app)/\(version)" }
}
