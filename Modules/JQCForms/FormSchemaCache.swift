import Foundation
import JQCKit
import Synchronization

/// Parsed form schemas by their ``FormSchema/hash`` (issue 17, "Local writes at the floor"): a pinned
/// schema never changes, so an inspection's schema is read and parsed once per process, not on every
/// answer. A new template version has a new hash and so gets its own entry; drafts pinned to the old one
/// keep theirs. Thread-safe; bounded by ``capacity`` (the least recently used entry goes first).
///
/// A hit costs one dictionary look-up (none when it is the hash used last) and a counter stamp: nothing is
/// reordered on a hit; only a miss past the capacity looks for the oldest stamp (at most ``capacity`` entries).
public final class FormSchemaCache: Sendable {
    /// How many schemas are kept at most.
    public let capacity: Int
    private struct Entry {
        let schema: FormSchema
        /// When it was last used (``State/clock`` at that use); the smallest is the least recently used.
        var used: UInt64
    }
    private struct State {
        var entries: [String: Entry] = [:]
        /// Counts uses; each hit or insert stamps its entry with the next value.
        var clock: UInt64 = 0
        /// The hash used last and its schema: a repeated hit needs neither a hash of the key nor a stamp.
        var last: (hash: String, schema: FormSchema)?
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
            state.clock += 1
            if state.entries.updateValue(Entry(schema: schema, used: state.clock), forKey: hash) == nil,
                state.entries.count > capacity,
                let oldest = state.entries.min(by: { $0.value.used < $1.value.used })?.key
            {
                state.entries[oldest] = nil
            }
            state.last = (hash, schema)
        }
        return schema
    }

    /// The cached schema for `hash`, if any (marks it as used).
    public func lookUp(_ hash: String) -> FormSchema? {
        state.withLock { state in Self.hit(&state, hash) }
    }

    /// The cached schema for `hash`, stamped as used and kept as the last one.
    private static func hit(_ state: inout State, _ hash: String) -> FormSchema? {
        if let last = state.last, last.hash == hash { return last.schema }
        guard let index = state.entries.index(forKey: hash) else { return nil }
        state.clock += 1
        state.entries.values[index].used = state.clock
        let schema = state.entries.values[index].schema
        state.last = (hash, schema)
        return schema
    }

    /// The hashes cached, least recently used first (tests, diagnostics).
    public var hashes: [String] {
        state.withLock { state in state.entries.sorted { $0.value.used < $1.value.used }.map(\.key) }
    }
}
