import Foundation
import JQCTestSupport
import Synchronization
import Testing

@testable import JQCKit

@Suite("FileLock and the shared log file: several processes, one data directory (issue 15)")
struct FileLockTests {
    @Test("a second holder is refused while the first holds the lock, and gets it once it is released")
    func exclusive() throws {
        let directory = TemporaryDirectory(prefix: "jqc-lock")
        let url = directory.path("sync.lock")
        // Two FileLock values on one file stand for two processes: flock belongs to the open file.
        let first = try #require(try FileLock(url: url).tryAcquire())
        #expect(try FileLock(url: url).tryAcquire() == nil)
        #expect(first.isHeld)
        first.release()
        #expect(!first.isHeld)
        let second = try #require(try FileLock(url: url).tryAcquire())
        #expect(try FileLock(url: url).tryAcquire() == nil)
        second.release()
    }

    @Test("a hold writes its process id into the lock file and clears it on release")
    func holderProcessID() throws {
        let directory = TemporaryDirectory(prefix: "jqc-lock")
        let lock = FileLock(url: directory.path("credentials.lock"))
        let hold = try #require(try lock.tryAcquire())
        #expect(lock.holderProcessID == getpid())
        hold.release()
        #expect(lock.holderProcessID == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: lock.url.path)[.posixPermissions]
        #expect((mode as? NSNumber)?.intValue == 0o600)
    }

    @Test("a hold that goes away releases the lock")
    func releasedOnDeinit() throws {
        let directory = TemporaryDirectory(prefix: "jqc-lock")
        let url = directory.path("sync.lock")
        do {
            let hold = try #require(try FileLock(url: url).tryAcquire())
            #expect(hold.isHeld)
        }
        #expect(try FileLock(url: url).tryAcquire() != nil)
    }

    @Test("waiting for a held lock gives up after the timeout with a sentence, and succeeds once it is free")
    func waitsAndTimesOut() async throws {
        let directory = TemporaryDirectory(prefix: "jqc-lock")
        let url = directory.path("credentials.lock")
        let hold = try #require(try FileLock(url: url).tryAcquire())
        await #expect {
            _ = try await FileLock(url: url).acquire(timeout: 0.05)
        } throws: { error in
            let lockError = error as? FileLock.LockError
            return lockError?.kind == .timedOut
                && lockError?.description.hasPrefix("Another jqc process has held") == true
        }
        let released = Atomic<Bool>(false)
        let waiter = Task {
            let taken = try await FileLock(url: url).acquire(timeout: 30)
            defer { taken.release() }
            return released.load(ordering: .acquiring)  // never true before the holder let go
        }
        released.store(true, ordering: .releasing)
        hold.release()
        #expect(try await waiter.value)
    }

    @Test("a lock file that cannot be opened is a sentence, not a crash")
    func unusableFile() throws {
        let lock = FileLock(url: URL(fileURLWithPath: "/nonexistent-jqc-dir/sync.lock"))
        #expect {
            _ = try lock.tryAcquire()
        } throws: { error in
            "\(error)".hasPrefix("Could not use the lock file /nonexistent-jqc-dir/sync.lock")
        }
    }

    @Test("two log sinks on one file (two processes) append whole lines and never write over each other")
    func sharedLogFile() throws {
        let directory = TemporaryDirectory(prefix: "jqc-log")
        let url = directory.path("jqc.log")
        let shell = FileLogSink(url: url)
        let timer = FileLogSink(url: url)
        for index in 0..<5 {
            shell.write("shell \(index)")
            timer.write("timer \(index)")
        }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == (0..<5).flatMap { ["shell \($0)", "timer \($0)"] })
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions]
        #expect((mode as? NSNumber)?.intValue == 0o600)
    }
}
