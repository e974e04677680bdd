import Foundation
import JQCKit
import Synchronization

/// Remembers that a server refused a build with 426, so later requests from the same build to the same
/// server are refused locally until the build changes (seed 004 `RequestPolicy`; SPEC.md §3; CONTRACT.md
/// "(ext)"). A refusal belongs to one server identity — the API client passes the current server's
/// normalised base URL (`https://jqc.ltservicesinc.com`) — so a switch to another server starts clean, and
/// switching back finds the refusal again.
public protocol UpdateRefusalMemory: Sendable {
    /// Whether `server` refused `build`.
    /// - Parameters:
    ///   - build: `<app>/<version>` (``ClientIdentity/build``).
    ///   - server: the server identity (a normalised base URL).
    func isRefused(build: String, server: String) -> Bool
    /// Records that `server` refused `build` (replacing any older refusal by that server).
    /// - Throws: the store's error when it cannot be written (the refusal still holds for this run).
    func remember(build: String, server: String) throws
    /// Forgets every refusal.
    /// - Throws: the store's error when it cannot be written.
    func clear() throws
}

/// A refusal memory in memory only (tests).
public final class InMemoryUpdateRefusalMemory: UpdateRefusalMemory {
    private let refused = Mutex<[String: String]>([:])
    /// An empty memory.
    public init() {}
    /// Whether `server` refused `build`; see ``UpdateRefusalMemory/isRefused(build:server:)``.
    public func isRefused(build: String, server: String) -> Bool { refused.withLock { $0[server] == build } }
    /// Records that `server` refused `build`.
    public func remember(build: String, server: String) throws { refused.withLock { $0[server] = build } }
    /// Forgets what is stored.
    public func clear() throws { refused.withLock { $0.removeAll() } }
}

/// A refusal memory in a file (`<data-dir>/update-required`, mode 0600, written atomically); it survives
/// restarts and stops applying as soon as the build string changes.
///
/// **Format** (2): JSON `{"format":2,"refusals":[{"server":"https://…","build":"jqc-shell/0.1.0"}]}`, one
/// refusal per server (the newest), at most ``maximumServers`` servers (the oldest are dropped).
///
/// **Migration** from format 1 (one line holding the refused build, no server): such a refusal came from
/// the server this data directory used when it was written — a data directory belongs to one server
/// identity (SHELL.md), and a server switch re-records it — so it is attributed to the first server it is
/// asked about, and the file is rewritten in format 2 at once. A build that changed since then was never
/// refused, as before.
public final class FileUpdateRefusalMemory: UpdateRefusalMemory {
    /// The file.
    public let url: URL
    /// How many servers' refusals are kept.
    public static let maximumServers = 16

    private enum Loaded {
        case refusals([(server: String, build: String)])
        case legacy(build: String)
    }

    private let cached = Mutex<[(server: String, build: String)]?>(nil)

    /// A memory kept at `url` (its directory must exist).
    public init(url: URL) { self.url = url }

    /// Whether `server` refused `build`; see ``UpdateRefusalMemory/isRefused(build:server:)``.
    public func isRefused(build: String, server: String) -> Bool {
        refusals(adoptingLegacyFor: server).contains { $0.server == server && $0.build == build }
    }

    /// - Throws: `AtomicFile.WriteError`.
    public func remember(build: String, server: String) throws {
        var entries = refusals(adoptingLegacyFor: server)
        entries.removeAll { $0.server == server }
        entries.append((server, build))
        if entries.count > FileUpdateRefusalMemory.maximumServers {
            entries.removeFirst(entries.count - FileUpdateRefusalMemory.maximumServers)
        }
        cached.withLock { $0 = entries }
        try write(entries)
    }

    /// - Throws: `CocoaError` when the file exists and cannot be removed.
    public func clear() throws {
        cached.withLock { $0 = [] }
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }

    /// The stored refusals; a format-1 refusal becomes `server`'s, and the file is rewritten (best-effort).
    private func refusals(adoptingLegacyFor server: String) -> [(server: String, build: String)] {
        let (entries, migrated) = cached.withLock { cached -> ([(server: String, build: String)], Bool) in
            if let known = cached { return (known, false) }
            let entries: [(server: String, build: String)]
            var migrated = false
            switch load() {
            case .refusals(let stored):
                entries = stored
            case .legacy(let build):
                entries = [(server, build)]
                migrated = true
            }
            cached = entries
            return (entries, migrated)
        }
        if migrated { try? write(entries) }
        return entries
    }

    private func load() -> Loaded {
        guard let data = try? Data(contentsOf: url), !data.isEmpty else { return .refusals([]) }
        if let object = try? JSONValue.parse(data), case .object(let members) = object {
            let list = members["refusals"]?.arrayValue ?? []
            return .refusals(
                list.compactMap { entry in
                    guard let server = entry["server"]?.stringValue, let build = entry["build"]?.stringValue else {
                        return nil
                    }
                    return (server, build)
                })
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, !text.hasPrefix("{"), !text.contains("\n") else { return .refusals([]) }
        return .legacy(build: text)
    }

    private func write(_ entries: [(server: String, build: String)]) throws {
        let value: JSONValue = [
            "format": 2,
            "refusals": .array(entries.map { ["server": .string($0.server), "build": .string($0.build)] }),
        ]
        try AtomicFile.write(value.jsonData(sortedKeys: true) + Data("\n".utf8), to: url, permissions: 0o600)
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

    /// `<app>/<version>`, the value of `X-JQC-Client` and, with the server, the key of the refusal memory.
    public var build: String { "\(app)/\(version)" }
}
