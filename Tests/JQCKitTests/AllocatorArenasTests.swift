import Foundation
import Testing

@testable import JQCKit

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The C allocator's arenas (SPEC.md §6: memory flat while syncing)")
struct AllocatorArenasTests {
    #if canImport(Glibc)
        /// The heaps (arenas) glibc's `malloc_info` lists for this process.
        static func arenas() throws -> Int {
            typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
            let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info"))
            let file = try #require(tmpfile())
            defer { fclose(file) }
            _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, file)
            rewind(file)
            var text = ""
            var buffer = [CChar](repeating: 0, count: 4_096)
            while fgets(&buffer, Int32(buffer.count), file) != nil {
                text += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            return text.components(separatedBy: "<heap nr=").count - 1
        }
    #endif

    @Test("once capped, 16 threads allocating at once make no arena beyond the limit, 4 (or beyond those already made)")
    func capHoldsUnderContention() throws {
        #expect(AllocatorArenas.limit == 4)
        #if canImport(Glibc)
            #expect(AllocatorArenas.cap())
            let before = try Self.arenas()
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for _ in 0..<16 {
                done.enter()
                Thread.detachNewThread {
                    start.wait()
                    for size in 0..<20_000 {
                        let block = malloc(64 + size % 512)
                        free(block)
                    }
                    done.leave()
                }
            }
            for _ in 0..<16 { start.signal() }
            done.wait()
            #expect(try Self.arenas() <= max(before, Int(AllocatorArenas.limit)), "before: \(before)")
        #endif
    }
}
