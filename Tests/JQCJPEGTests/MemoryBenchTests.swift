import Foundation
import JQCJPEG
import JQCTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Peak memory on a large photo (issue 8, "Must show"). Peak RSS is per process, so this runs only when
/// asked, alone: `JQC_BENCH_MEMORY=1 swift test --filter MemoryBench`.
@Suite(
    "memory bench: a large photo imports within about two decoded images",
    .enabled(
        if: ProcessInfo.processInfo.environment["JQC_BENCH_MEMORY"] == "1",
        "set JQC_BENCH_MEMORY=1 and run this suite alone (peak RSS is per process)"))
struct MemoryBenchTests {
    /// Resident memory now, from /proc/self/statm (Linux), in bytes; 0 when unreadable.
    static func currentResidentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// The process's peak resident memory so far, in bytes.
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    @Test("a 6000 × 4000 photo turned 90° (second buffer needed) peaks under two decoded images plus slack")
    func peak() throws {
        let orientation = 6
        // Peak RSS only grows, so measure from what is resident now: the peak later reached is then at
        // least this plus the import's own buffers.
        let baseline = Self.currentResidentBytes()
        #expect(baseline > 0)
        let (width, height) = (6000, 4000)
        let imageBytes = width * height * 3
        let directory = TemporaryDirectory()
        let input = directory.path("large.jpg")
        do {
            let pixels = [UInt8](unsafeUninitializedCapacity: imageBytes) { buffer, count in
                for index in 0..<imageBytes {
                    let pixel = index / 3
                    buffer[index] = UInt8(truncatingIfNeeded: (pixel % width) ^ (pixel / width) &+ index % 3 &* 70)
                }
                count = imageBytes
            }
            let image = try PixelImage(width: width, height: height, channels: 3, pixels: pixels)
            let payload = TestImages.orientationPayload(UInt16(orientation), bigEndian: true)
            try TestImages.inserting(app1: payload, into: try JPEGCodec.encode(image, quality: 90)).write(to: input)
        }
        let started = ContinuousClock.now
        let result = try JPEGPipeline.recompress(
            input: input, output: directory.path("out.jpg"), options: JPEGImportOptions(maxLongEdge: 8000))
        let elapsed = ContinuousClock.now - started
        let growth = Self.peakResidentBytes() - baseline
        #expect(result.orientationApplied.rawValue == orientation)
        #expect(result.width * result.height == width * height)
        let slack = 24 << 20
        #expect(
            growth <= 2 * imageBytes + slack,
            "peak grew by \(growth >> 20) MB; one decoded image is \(imageBytes >> 20) MB; import took \(elapsed)")
    }
}
