import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCStorage

private func openStore(_ directory: TemporaryDirectory, _ configuration: DatabaseConfiguration = .init()) throws
    -> DatabaseQueue
{
    let store = try DatabaseQueue(path: directory.path("store.sqlite").path, configuration: configuration)
    try store.write { db in
        try db.execute(
            "CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, data TEXT)")
    }
    return store
}

@Suite("Database basics")
struct DatabaseBasicsTests {
    @Test("a new store uses WAL, foreign keys and synchronous FULL")
    func pragmas() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let (mode, foreignKeys, synchronous): (String?, Int64?, Int64?) = try store.writeWithoutTransaction { db in
            (
                try db.scalar("PRAGMA journal_mode"), try db.scalar("PRAGMA foreign_keys"),
                try db.scalar("PRAGMA synchronous")
            )
        }
        #expect(mode == "wal")
        #expect(foreignKeys == 1)
        #expect(synchronous == 2)  // FULL
        let normal = try DatabaseQueue(
            path: directory.path("n.sqlite").path, configuration: .init(synchronous: .normal))
        #expect(try normal.writeWithoutTransaction { try $0.scalar("PRAGMA synchronous") as Int64? } == 1)
    }

    @Test("the page cache holds 3 MiB by default (the answer rows of 50 open 1,000-field drafts), or what is asked")
    func pageCache() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        // A negative cache_size is a limit in KiB.
        #expect(try store.read { try $0.scalar("PRAGMA cache_size") as Int64? } == -3_072)
        let small = try DatabaseQueue(
            path: directory.path("small.sqlite").path, configuration: .init(pageCacheKiB: 512))
        #expect(try small.read { try $0.scalar("PRAGMA cache_size") as Int64? } == -512)
    }

    @Test("a new file takes the page size asked, an existing one keeps its own, and a size SQLite has not is refused")
    func pageSize() throws {
        let directory = TemporaryDirectory()
        let standard = try openStore(directory)
        #expect(try standard.read { try $0.scalar("PRAGMA page_size") as Int64? } == 4_096)

        let smallDirectory = TemporaryDirectory()
        let small = try openStore(smallDirectory, .init(pageSize: 1_024))
        #expect(try small.read { try $0.scalar("PRAGMA page_size") as Int64? } == 1_024)
        // The file stays in WAL mode with its small pages, and reopening it asking for more changes nothing.
        #expect(try small.read { try $0.scalar("PRAGMA journal_mode") as String? } == "wal")
        let again = try DatabaseQueue(
            path: smallDirectory.path("store.sqlite").path, configuration: .init(pageSize: 8_192))
        #expect(try again.read { try $0.scalar("PRAGMA page_size") as Int64? } == 1_024)
        #expect(try again.read { try $0.scalar("SELECT count(*) FROM items") as Int64? } == 0)

        // An older file asked for small pages keeps its 4 KiB ones.
        let reopened = try DatabaseQueue(
            path: directory.path("store.sqlite").path, configuration: .init(pageSize: 1_024))
        #expect(try reopened.read { try $0.scalar("PRAGMA page_size") as Int64? } == 4_096)

        for wrong in [0, 1_000, 256, 131_072] {
            #expect(throws: DatabaseError.self, "\(wrong)") {
                try DatabaseQueue(
                    path: directory.path("wrong-\(wrong).sqlite").path, configuration: .init(pageSize: wrong))
            }
        }
    }

    @Test("a date as INTEGER milliseconds names the same millisecond as its text, both ways")
    func millisecondsMatchText() throws {
        // Near 1970 the double-precision product floors a millisecond low for some values: read from text's
        // fields, not from a Date, the count is exact.
        for seconds in [0, 1, 10, 265_717, 1_780_000_000, 4_102_444_800] {
            for millisecond in [0, 1, 7, 500, 978, 999] {
                let expected = Int64(seconds) * 1000 + Int64(millisecond)
                let date = Date(databaseMilliseconds: expected)
                guard case .text(let text) = date.databaseValue else {
                    Issue.record("a date is stored as text")
                    continue
                }
                #expect(Date.databaseMilliseconds(text: text) == expected, "\(text)")
                #expect(Date.fromDatabaseValue(.text(text)) == date, "\(text)")
                #expect(text.hasSuffix(String(format: ".%03d", millisecond)), "\(text)")
            }
        }
        #expect(Date(databaseMilliseconds: -1).databaseValue == .text("1969-12-31 23:59:59.999"))
        #expect(Date.databaseMilliseconds(text: "2026-12-03 07:59:32.978") == 1_796_284_772_978)
        #expect(Date.databaseMilliseconds(text: "yesterday") == nil)
    }

    @Test("values of every type round-trip through a row")
    func typedRoundTrip() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let date = Date(timeIntervalSince1970: 1_784_035_800.123)
        let json: JSONValue = ["5": 4.0, "tags": ["a", "b"], "n": 9_007_199_254_740_993]
        let row = try store.write { db -> Row in
            try db.execute("CREATE TABLE typed (i INTEGER, r REAL, t TEXT, b BLOB, f INTEGER, d TEXT, j TEXT, n TEXT)")
            try db.execute(
                "INSERT INTO typed VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [Int64.max, 0.1, "é😀", Data([0, 1, 255]), true, date, json, String?.none])
            return try #require(try db.fetchOne("SELECT * FROM typed"))
        }
        #expect(row["i"] as Int64? == .max)
        #expect(row["r"] as Double? == 0.1)
        #expect(row["t"] as String? == "é😀")
        #expect(row["b"] as Data? == Data([0, 1, 255]))
        #expect(row["f"] as Bool? == true)
        #expect(row["d"] as String? == "2026-07-14 13:30:00.123")
        #expect((row["d"] as Date?)?.timeIntervalSince1970 == 1_784_035_800.123)
        #expect(row["j"] as JSONValue? == json)
        #expect(row["n"] as String? == nil)
        #expect(row.databaseValue("n") == .null)
    }

    @Test("firstRowValues reads the first row's values in column order, a null as .null, no row as nil")
    func firstRowValuesInColumnOrder() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        try store.write { db in
            try db.execute("INSERT INTO items (id, name, data) VALUES (7, 'mop', NULL), (8, 'pail', 'x')")
            #expect(try db.firstRowValues("SELECT id, name FROM items ORDER BY id") == [.integer(7), .text("mop")])
            #expect(try db.firstRowValues("SELECT data, id FROM items WHERE id = ?", [7]) == [.null, .integer(7)])
            #expect(try db.firstRowValues("SELECT id, name FROM items WHERE id = ?", [9]) == nil)
        }
    }

    @Test("text with NUL, control characters and an empty string round-trips whole (server strings, issue 21)")
    func textWithNULRoundTrips() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let values = ["North\u{0}Tower", "\u{0}", "", "\u{1B}[2J\u{7}Küche\u{202E}", "tail\u{0}"]
        let read = try store.write { db -> [String] in
            try db.execute("CREATE TABLE texts (position INTEGER PRIMARY KEY, value TEXT NOT NULL)")
            for (position, value) in values.enumerated() {
                try db.execute("INSERT INTO texts VALUES (?, ?)", [Int64(position), value])
            }
            return try db.fetchAll("SELECT value FROM texts ORDER BY position").map { $0["value"] as String? ?? "?" }
        }
        #expect(read == values)
        let lengths = try store.read { db in
            try db.fetchAll("SELECT length(CAST(value AS BLOB)) AS n FROM texts ORDER BY position").map {
                $0["n"] as Int64? ?? -1
            }
        }
        #expect(lengths == values.map { Int64($0.utf8.count) })
    }

    @Test("stored dates sort as text in time order")
    func datesSort() {
        let early = Date(timeIntervalSince1970: 999_999_999.5).databaseValue
        let late = Date(timeIntervalSince1970: 1_000_000_000).databaseValue
        guard case .text(let a) = early, case .text(let b) = late else { Issue.record("not text"); return }
        #expect(a < b)
        #expect(a == "2001-09-09 01:46:39.500")
    }

    @Test("the digit-by-digit date text is the interpolated one, millisecond for millisecond, and parses")
    func dateTextMatchesInterpolation() throws {
        var seconds: [Double] = [0, 0.001, 0.999, 59.5, 951_782_400, 999_999_999.5, 1_783_999_999.999, 4_102_444_799]
        var state: UInt64 = 17
        for _ in 0..<500 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            seconds.append(Double(state % 4_102_444_800_000) / 1000)  // 1970…2099, to the millisecond
        }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))  // as the format reads it
            var time = time_t(milliseconds / 1000)  // never negative here
            var parts = tm()
            gmtime_r(&time, &parts)
            let text = DatabaseDateFormat.string(date)
            #expect(text == DatabaseDateFormat.padded(parts, fraction: Int(milliseconds - Int64(time) * 1000)))
            #expect(text.utf8.count == 23)
            let parsed = try #require(DatabaseDateFormat.date(text))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
        }
        // The day count is timegm's, for every day of 1600…2400 (leap centuries included) and days past a
        // month's end.
        var mismatches: [String] = []
        for year in 1600...2400 {
            for month in 1...12 {
                for day in [1, 15, 28, 29, 30, 31, 32] {
                    var parts = tm()
                    parts.tm_year = Int32(year - 1900)
                    parts.tm_mon = Int32(month - 1)
                    parts.tm_mday = Int32(day)
                    let expected = Int(timegm(&parts)) / 86_400
                    if DatabaseDateFormat.daysFromCivil(year: year, month: month, day: day) != expected {
                        mismatches.append("\(year)-\(month)-\(day)")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty)
        let normalised = DatabaseDateFormat.date("2026-13-01 00:00:00.000")
        #expect(normalised == DatabaseDateFormat.date("2027-01-01 00:00:00.000"))
        #expect(DatabaseDateFormat.string(Date(timeIntervalSince1970: 1_783_999_999.5)) == "2026-07-14 03:33:19.500")
    }

    @Test("a wrong argument count is refused before running")
    func argumentCount() throws {
        let store = try openStore(TemporaryDirectory())
        #expect { try store.write { try $0.execute("INSERT INTO items (name) VALUES (?)", []) } } throws: { error in
            (error as? DatabaseError)?.kind == .misuse
        }
    }

    @Test("with no arguments, statements separated by semicolons all run; with arguments, one statement")
    func severalStatements() throws {
        let store = try openStore(TemporaryDirectory())
        try store.write { db in
            try db.execute("INSERT INTO items (name) VALUES ('a'); INSERT INTO items (name) VALUES ('b')")
            try db.execute("INSERT INTO items (name, data) VALUES (?, 'x;y')", ["c"])
        }
        let names: [String] = try store.read { db in
            try db.fetchAll("SELECT name FROM items ORDER BY name").compactMap { $0["name"] }
        }
        #expect(names == ["a", "b", "c"])
    }

    @Test("statements built at run time are told apart by their text, even when one reuses another's address")
    func statementCacheByText() throws {
        let store = try openStore(TemporaryDirectory())
        // 1,000 distinct texts of one length, each dropped after use: more than the address cache holds, so it
        // is emptied and the allocator hands freed addresses to new texts.
        let values: [Int64?] = try store.read { db in
            try (0..<1_000).map { index in
                let sql = "SELECT \(10_000 + index) AS value_of_this_statement"
                return try db.scalar(sql)
            }
        }
        #expect(values == (0..<1_000).map { Int64(10_000 + $0) })
        // A literal is found again after all that, and the same text at another address is the same statement.
        let literal: Int64? = try store.read { try $0.scalar("SELECT 42 AS value_of_this_statement") }
        let copy = String(decoding: Array("SELECT 42 AS value_of_this_statement".utf8), as: UTF8.self)
        #expect(literal == 42)
        #expect(try store.read { try $0.scalar(copy) as Int64? } == 42)
        // The check an address hit must pass: the cached text's bytes, not the address alone.
        #expect(Database.sameBytes("SELECT 42 AS value_of_this_statement", copy))
        #expect(!Database.sameBytes("SELECT 43 AS value_of_this_statement", copy))
        #expect(!Database.sameBytes("SELECT 42 AS value_of_this_statemen", copy))
    }

    @Test("a cached SELECT * names the columns an ALTER TABLE added (the statement was re-prepared)")
    func cachedColumnsFollowTheSchema() throws {
        let store = try openStore(TemporaryDirectory())
        let sql = "SELECT * FROM items ORDER BY id"
        let before = try store.write { db -> [String] in
            try db.execute("INSERT INTO items (name) VALUES ('a')")
            return try #require(try db.fetchOne(sql)).columns
        }
        #expect(before == ["id", "name", "data"])
        let after = try store.write { db -> Row in
            try db.execute("ALTER TABLE items ADD COLUMN grade INTEGER NOT NULL DEFAULT 3")
            return try #require(try db.fetchAll(sql).first)
        }
        #expect(after.columns == ["id", "name", "data", "grade"])
        #expect(after["grade"] as Int? == 3)
        #expect(after["name"] as String? == "a")
    }
}

@Suite("Transactions")
struct TransactionTests {
    struct Boom: Error {}

    @Test("a throwing write rolls everything back")
    func rollbackOnThrow() throws {
        let store = try openStore(TemporaryDirectory())
        #expect(throws: Boom.self) {
            try store.write { db in
                try db.execute("INSERT INTO items (name) VALUES ('a')")
                try db.execute("INSERT INTO items (name) VALUES ('b')")
                throw Boom()
            }
        }
        #expect(try store.read { try $0.scalar("SELECT count(*) FROM items") as Int64? } == 0)
    }

    @Test("a nested transaction is a savepoint: an inner failure undoes only the inner work")
    func nestedSavepoints() throws {
        let store = try openStore(TemporaryDirectory())
        try store.write { db in
            try db.execute("INSERT INTO items (name) VALUES ('outer')")
            do {
                try db.transaction { inner in
                    try inner.execute("INSERT INTO items (name) VALUES ('inner')")
                    try inner.transaction { innermost in
                        try innermost.execute("INSERT INTO items (name) VALUES ('innermost')")
                    }
                    throw Boom()
                }
            } catch is Boom {}
            try db.transaction { inner in try inner.execute("INSERT INTO items (name) VALUES ('kept')") }
        }
        let names = try store.read { db in
            try db.fetchAll("SELECT name FROM items ORDER BY id").compactMap { $0["name"] as String? }
        }
        #expect(names == ["outer", "kept"])
    }

    @Test("a constraint failure is a sentence and leaves no partial rows")
    func constraint() throws {
        let store = try openStore(TemporaryDirectory())
        try store.write { try $0.execute("INSERT INTO items (name) VALUES ('a')") }
        #expect {
            try store.write { db in
                try db.execute("INSERT INTO items (name) VALUES ('b')")
                try db.execute("INSERT INTO items (name) VALUES ('a')")
            }
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .constraint && error.resultCode == 19 && error.extendedResultCode == 2067
                && error.description.hasPrefix("The change was refused by the local store")
        }
        #expect(try store.read { try $0.scalar("SELECT count(*) FROM items") as Int64? } == 1)
    }
}

@Suite("Bad input and failures")
struct StorageFailureTests {
    @Test("disk full gives a sentence and no partial rows")
    func diskFull() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let pages: Int64 = try store.writeWithoutTransaction { db in try db.scalar("PRAGMA page_count") ?? 0 }
        try store.writeWithoutTransaction { db in try db.execute("PRAGMA max_page_count = \(pages + 3)") }
        let big = String(repeating: "x", count: 4096)
        #expect {
            try store.write { db in
                for index in 0..<50 {
                    try db.execute("INSERT INTO items (name, data) VALUES (?, ?)", ["n\(index)", big])
                }
            }
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .diskFull && error.resultCode == 13 && error.code == "storage.disk_full"
                && error.description.contains("the disk is full; nothing was changed")
        }
        #expect(try store.read { try $0.scalar("SELECT count(*) FROM items") as Int64? } == 0)
    }

    @Test("a file that is not a database is refused with a sentence and left untouched")
    func corruptFile() throws {
        let directory = TemporaryDirectory()
        let file = directory.path("store.sqlite")
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: file)
        #expect { _ = try DatabaseQueue(path: file.path) } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .corrupt && error.description.hasPrefix("The local store file is damaged")
        }
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test("a read-only store refuses writes with a sentence")
    func readOnly() throws {
        let directory = TemporaryDirectory()
        _ = try openStore(directory)
        let readOnly = try DatabaseQueue(
            path: directory.path("store.sqlite").path, configuration: .init(readOnly: true))
        #expect { try readOnly.write { try $0.execute("INSERT INTO items (name) VALUES ('x')") } } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .readOnly && error.description.contains("Check the permissions of the data directory")
        }
    }

    @Test("a missing folder cannot be opened, with a sentence")
    func missingFolder() {
        #expect { _ = try DatabaseQueue(path: "/nonexistent-\(UUID())/store.sqlite") } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .cannotOpen && error.description.hasPrefix("The local store could not be opened")
        }
    }
}

@Suite("Migrations")
struct MigrationTests {
    private func migrator(_ steps: Int) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(namespace: "inspections", "1-create") { db in
            try db.execute("CREATE TABLE inspections (id INTEGER PRIMARY KEY, local_id TEXT NOT NULL)")
        }
        if steps > 1 {
            migrator.registerMigration(namespace: "inspections", "2-follow-up-flag") { db in
                try db.execute("ALTER TABLE inspections ADD COLUMN follow_up_required INTEGER NOT NULL DEFAULT 0")
            }
        }
        if steps > 2 {
            migrator.registerMigration(namespace: "issues", "1-create") { db in
                try db.execute("CREATE TABLE issues (id INTEGER PRIMARY KEY)")
            }
        }
        return migrator
    }

    @Test("migrations apply once, in order, and an older store gains new columns with defaults")
    func applyInOrder() throws {
        let directory = TemporaryDirectory()
        let store = try DatabaseQueue(path: directory.path("s.sqlite").path)
        #expect(try migrator(1).migrate(store) == ["inspections/1-create"])
        try store.write { try $0.execute("INSERT INTO inspections (local_id) VALUES ('A')") }
        #expect(try migrator(3).migrate(store) == ["inspections/2-follow-up-flag", "issues/1-create"])
        #expect(try migrator(3).migrate(store) == [])
        #expect(try store.read { try $0.scalar("SELECT follow_up_required FROM inspections") as Int64? } == 0)
    }

    @Test("a store written by a newer build is refused with a sentence and left as it was")
    func newerStoreRefused() throws {
        let directory = TemporaryDirectory()
        let store = try DatabaseQueue(path: directory.path("s.sqlite").path)
        try migrator(3).migrate(store)
        #expect { try migrator(1).migrate(store) } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .newerSchema
                && error.description.hasPrefix("This data directory was written by a newer version of jqc")
                && error.description.contains("'inspections/2-follow-up-flag', 'issues/1-create'")
        }
        #expect(try store.read { try $0.scalar("SELECT count(*) FROM jqc_migrations") as Int64? } == 3)
    }

    @Test("a migration that fails half-way leaves the store exactly as it was")
    func failedMigrationRollsBack() throws {
        let directory = TemporaryDirectory()
        let store = try DatabaseQueue(path: directory.path("s.sqlite").path)
        try migrator(1).migrate(store)
        var broken = migrator(2)
        broken.registerMigration(namespace: "issues", "1-broken") { db in
            try db.execute("CREATE TABLE issues (id INTEGER PRIMARY KEY)")
            try db.execute("ALTER TABLE no_such_table ADD COLUMN x INTEGER")
        }
        #expect { try broken.migrate(store) } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .migrationFailed
                && error.description.hasPrefix("Updating the local store failed at 'issues/1-broken'")
        }
        let tables = try store.read { db in
            try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap {
                $0["name"] as String?
            }
        }
        #expect(tables == ["inspections", "jqc_migrations"])
        let columns = try store.read { db in
            try db.fetchAll("PRAGMA table_info(inspections)").compactMap { $0["name"] as String? }
        }
        #expect(columns == ["id", "local_id"])
    }
}
