import Foundation
import JQCJPEG
import JQCTestSupport
import Testing

/// Peak memory of one import (issue 17: "peak memory bounded by ~2× one decoded image, less when
/// streaming"), measured where it is exact: each import runs alone in a child `jqc-shell photos recompress`
/// and its peak resident set (the kernel's high-water mark, VmHWM, as GNU time reports it) is compared with
/// the same child importing a tiny photo. Not timed.
@Suite("peak memory of one import, measured in a child process")
struct ImportMemoryTests {
    static let shell = TestPaths.productsDirectory.appendingPathComponent("jqc-shell")

    /// GNU time (Debian package `time`, in the Makefile's APT_PACKAGES).
    static let time = URL(fileURLWithPath: "/usr/bin/time")

    /// Runs `jqc-shell photos recompress input output` under GNU time and returns the child's peak resident
    /// set in KiB. GNU time forks the child from its own small process: a child spawned straight from this
    /// (large) test process would report this process's peak instead, since Linux carries the high-water
    /// mark of the address space a process leaves at `exec` into its `ru_maxrss`.
    static func peakKiB(importing input: URL, to output: URL, in directory: TemporaryDirectory) throws -> Int {
        let report = directory.path("peak.txt")
        let log = directory.path("child.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = TestProcess()
        process.executableURL = time
        process.arguments = [
            "-f", "%M", "-o", report.path, shell.path, "--data-dir", directory.path("data").path, "--json", "-c",
            "photos recompress \(input.path) \(output.path)",
        ]
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        process.waitUntilExit()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0 && output.contains("\"ok\":true"), "jqc-shell: \(output)")
        let text = try String(contentsOf: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(Int(text), "GNU time wrote \(text)")
    }

    /// A `width` × `height` JPEG of diagonal stripes (quality 90, 4:2:0), built row by row so a debug
    /// build makes it quickly, with EXIF `orientation`.
    static func photo(width: Int, height: Int, orientation: Int) throws -> Data {
        let rowBytes = width * 3
        let base = (0..<2 * rowBytes).map { UInt8(truncatingIfNeeded: $0 &* 7 / 3 &+ ($0 % 3) &* 70) }
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            base.withUnsafeBufferPointer { source in
                guard let into = buffer.baseAddress, let from = source.baseAddress else { return }
                for y in 0..<height {
                    let start = (y * 3) % rowBytes
                    UnsafeMutableRawPointer(into + y * rowBytes).copyMemory(from: from + start, byteCount: rowBytes)
                }
            }
            count = rowBytes * height
        }
        let jpeg = try JPEGCodec.encode(
            try PixelImage(width: width, height: height, channels: 3, pixels: pixels), quality: 90)
        guard orientation != 1 else { return jpeg }
        return TestImages.inserting(
            app1: TestImages.orientationPayload(UInt16(orientation), bigEndian: true), into: jpeg)
    }

    @Test("a 12 MP import streams in a fraction of one decoded image; a turned one holds at most one, never two")
    func peakStaysUnderOneDecodedImage() throws {
        let shell = Self.shell
        try #require(FileManager.default.isExecutableFile(atPath: shell.path), "build jqc-shell first: \(shell.path)")
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.time.path),
            "GNU time is missing: run make deps (package time)")
        let directory = TemporaryDirectory()
        let (width, height) = (4000, 3000)
        let decodedKiB = width * height * 3 / 1024
        let tiny = directory.path("tiny.jpg")
        try Self.photo(width: 16, height: 16, orientation: 1).write(to: tiny)
        let baseline = try Self.peakKiB(importing: tiny, to: directory.path("tiny-out.jpg"), in: directory)
        for orientation in [1, 6] {
            let input = directory.path("large-\(orientation).jpg")
            try Self.photo(width: width, height: height, orientation: orientation).write(to: input)
            let output = directory.path("out-\(orientation).jpg")
            let growth = try Self.peakKiB(importing: input, to: output, in: directory) - baseline
            // The input is memory-mapped (its pages count once read) and the output is built in memory.
            let filesKiB = (try Data(contentsOf: input).count + Data(contentsOf: output).count) / 1024
            let header = try JPEGCodec.readHeader(try Data(contentsOf: output))
            #expect(header.width == (orientation == 6 ? height : width))
            let held = growth - filesKiB
            let note =
                "orientation \(orientation): peak +\(growth) KiB over \(baseline) KiB, files \(filesKiB) KiB, "
                + "one decoded image \(decodedKiB) KiB"
            if orientation == 1 {
                // Streaming: four 32-row strips (1.5 MB) of decoded samples at most.
                #expect(held <= decodedKiB / 8, "\(note)")
            } else {
                // One image held (the 4:2:0 planes: half of one), then turned strip by strip.
                #expect(held <= decodedKiB, "\(note)")
                #expect(growth <= 2 * decodedKiB, "\(note)")
            }
        }
    }
}
