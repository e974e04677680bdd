import Foundation
import JQCKit
import Synchronization

/// Parsed form schemas by their ``FormSchema/hash`` (issue 17, "Local writes at the floor"): a pinned
/// schema never changes, so an inspection's schema is read and parsed once per process, not on every
/// answer. A new template version has a new hash and so gets its own entry; drafts pinned to the old one
/// keep theirs. Thread-safe; bounded by ``capacity`` (the least recently used entry goes first).
public final class FormSchemaCache: Sendable {
    /// How many schemas are kept at most.
    public let capacity: Int
    private struct State {
        var schemas: [String: FormSchema] = [:]
        /// Hashes, least recently used first.
        var order: [String] = []
    }
    private let state = Mutex(State())

    /// An empty cache.
    /// - Parameter capacity: the most schemas kept (at least 1; 64 by default — a device holds drafts of a
    ///   few template versions at a time).
    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// The schema pinned under `hash`: the cached one, or `load()` read and parsed, and kept when its own
    /// hash is `hash` (a stored hash that does not match its schema, such as an old row's empty one, is
    /// never trusted as a key: the schema is parsed every time).
    /// - Parameters:
    ///   - hash: the stored `schema_hash` (16 hex digits, ``FormSchema/hash``).
    ///   - load: reads the schema JSON (the inspection's `schema_snapshot`); called on a miss only.
    /// - Returns: the parsed schema.
    /// - Throws: whatever `load` throws; nothing is cached then.
    public func schema(hash: String, load: () throws -> JSONValue) rethrows -> FormSchema {
        if let cached = lookUp(hash) { return cached }
        let schema = FormSchema(json: try load())
        guard schema.hash == hash else { return schema }
        state.withLock { state in
            if state.schemas.updateValue(schema, forKey: hash) == nil {
                state.order.append(hash)
                if state.order.count > capacity {
                    state.schemas[state.order.removeFirst()] = nil
                }
            }
        }
        return schema
    }

    /// The cached schema for `hash`, if any (marks it as used).
    public func lookUp(_ hash: String) -> FormSchema? {
        state.withLock { state in
            guard let schema = state.schemas[hash] else { return nil }
            if state.order.last != hash, let index = state.order.firstIndex(of: hash) {
                state.order.remove(at: index)
                state.order.append(hash)
            }
            return schema
        }
    }

    /// The hashes cached, least recently used first (tests, diagnostics).
    public var hashes: [String] { state.withLock { $0.order } }
}
