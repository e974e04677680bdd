import JQCKit
import Synchronization
import Testing

@testable import JQCForms

@Suite("FormSchemaCache (issue 17): parsed schemas by schema hash")
struct FormSchemaCacheTests {
    let version1: JSONValue = [["id": 1, "type": "rating", "label": "Floors"]]
    let version2: JSONValue = [
        ["id": 1, "type": "rating", "label": "Floors"], ["id": 2, "type": "text", "label": "Notes"],
    ]

    @Test("a hit never loads again; a new version (a new hash) gets its own entry and the old one stays")
    func keyedByHash() {
        let cache = FormSchemaCache()
        let loads = Mutex(0)
        let hash1 = FormSchema(json: version1).hash
        let hash2 = FormSchema(json: version2).hash
        #expect(hash1 != hash2)
        let first = cache.schema(hash: hash1) {
            loads.withLock { $0 += 1 }
            return version1
        }
        let again = cache.schema(hash: hash1) {
            loads.withLock { $0 += 1 }
            return version2  // never read: the hash is cached
        }
        #expect(first.fields.map(\.id) == ["1"])
        #expect(again.fields.map(\.id) == ["1"])
        #expect(loads.withLock { $0 } == 1)
        let second = cache.schema(hash: hash2) {
            loads.withLock { $0 += 1 }
            return version2
        }
        #expect(second.fields.map(\.id) == ["1", "2"])
        #expect(loads.withLock { $0 } == 2)
        #expect(cache.hashes == [hash1, hash2])
        #expect(cache.lookUp(hash1)?.raw == version1)
        #expect(cache.lookUp(hash2)?.raw == version2)
    }

    @Test("a stored hash that is not its schema's (an old row's empty hash) is never a key")
    func untrustedHash() {
        let cache = FormSchemaCache()
        #expect(cache.schema(hash: "") { version1 }.fields.count == 1)
        #expect(cache.schema(hash: "") { version2 }.fields.count == 2)
        #expect(cache.hashes.isEmpty)
    }

    @Test("past its capacity the least recently used schema goes first")
    func capacity() {
        let cache = FormSchemaCache(capacity: 2)
        let schemas: [JSONValue] = (1...3).map { [["id": .int(Int64($0)), "type": "text"]] }
        let hashes = schemas.map { FormSchema(json: $0).hash }
        _ = cache.schema(hash: hashes[0]) { schemas[0] }
        _ = cache.schema(hash: hashes[1]) { schemas[1] }
        _ = cache.lookUp(hashes[0])  // used again: 1 is now the oldest
        _ = cache.schema(hash: hashes[2]) { schemas[2] }
        #expect(cache.hashes == [hashes[0], hashes[2]])
    }

    @Test("a hit is stamped, not reordered: the last-used shortcut and the stamps keep least-recently-used eviction")
    func stampsKeepRecency() {
        let cache = FormSchemaCache(capacity: 2)
        let schemas: [JSONValue] = (1...3).map { [["id": .int(Int64($0)), "type": "rating"]] }
        let hashes = schemas.map { FormSchema(json: $0).hash }
        _ = cache.schema(hash: hashes[0]) { schemas[0] }
        _ = cache.schema(hash: hashes[1]) { schemas[1] }
        #expect(cache.lookUp(hashes[0])?.raw == schemas[0])
        #expect(cache.lookUp(hashes[0])?.raw == schemas[0])  // the last-used shortcut
        #expect(cache.hashes == [hashes[1], hashes[0]])
        #expect(cache.lookUp(hashes[1])?.raw == schemas[1])
        #expect(cache.lookUp(hashes[0])?.raw == schemas[0])
        _ = cache.schema(hash: hashes[2]) { schemas[2] }  // 1 is the least recently used
        #expect(cache.hashes == [hashes[0], hashes[2]])
        #expect(cache.lookUp(hashes[1]) == nil)
        #expect(cache.lookUp(hashes[2])?.raw == schemas[2])
        // A schema just parsed is the last used: the shortcut never answers for an older one after it.
        let fresh = FormSchemaCache(capacity: 2)
        _ = fresh.schema(hash: hashes[0]) { schemas[0] }
        _ = fresh.lookUp(hashes[0])
        _ = fresh.schema(hash: hashes[1]) { schemas[1] }
        _ = fresh.lookUp(hashes[0])
        _ = fresh.schema(hash: hashes[2]) { schemas[2] }
        #expect(fresh.hashes == [hashes[0], hashes[2]])
    }
}
