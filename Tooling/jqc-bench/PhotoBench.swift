import Foundation
import JQCJPEG

/// SPEC.md §6 photo import: JQCJPEG's pipeline (decode, orient, encode q80, atomic write) against
/// `djpeg | cjpeg -quality 80` on the same files; peak RSS of one 12 MP import against 2× its decoded size.
struct PhotoBench {
    /// `../shared/fixtures/photos` (read in place, never copied); `nil` or missing → the fixture row is skipped.
    let fixtures: URL?
    /// A scratch folder for outputs and the generated 12 MP photo.
    let work: URL
    /// Rounds per side; the median round is reported.
    let rounds: Int

    static let width = 4000
    static let height = 3000

    /// How a row runs our side on one file.
    enum Write {
        /// `JPEGPipeline.recompress(input:output:)`: temporary file, fsync, rename, fsync of the folder.
        case atomic
        /// The same bytes written with a plain `write` and no fsync: the pipe's own durability (`> OUT`).
        case plain
    }

    func run() throws -> [ReportRow] {
        guard let djpeg = Child.which("djpeg"), let cjpeg = Child.which("cjpeg") else {
            return [
                .skipped(
                    "Photo import", target: "≥ 1.0× speed",
                    why: "djpeg/cjpeg not found: run make deps (libjpeg-turbo-progs).")
            ]
        }
        let reference = Reference(djpeg: djpeg, cjpeg: cjpeg)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var rows: [ReportRow] = []
        if let fixtures, FileManager.default.fileExists(atPath: fixtures.path) {
            rows += try compare(
                [
                    Variant(label: "Photo import, fixture photos", write: .atomic),
                    Variant(
                        label: "Photo import, fixture photos, plain write (no fsync)", write: .plain, information: true),
                ], files: try fixtureFiles(fixtures, reference: reference), reference: reference, rounds: 2 * rounds)
        } else {
            rows.append(
                .skipped(
                    "Photo import, fixture photos", target: "ours/ref time ≤ 1.00×",
                    why: "../shared/fixtures/photos is absent on this machine."))
        }
        let large = try generateLargePhoto()
        rows += try compare(
            [Variant(label: "Photo import, generated 12 MP (4000×3000)", write: .atomic)], files: [large],
            reference: reference, rounds: 2 * rounds)
        let turned = work.appendingPathComponent("generated-12mp-orientation-6.jpg")
        try Self.withOrientation(6, try Data(contentsOf: large)).write(to: turned)
        rows += try compare(
            [
                Variant(
                    label: "Photo import, generated 12 MP, EXIF orientation 6 (turned 90°)", write: .atomic,
                    information: true)
            ], files: [turned], reference: reference, rounds: 2 * rounds)
        rows += try peakRSS(large, turned: turned, reference: reference)
        return rows
    }

    // MARK: - Inputs

    /// The fixtures the manifest marks `decode-ok` that both sides accept (ours refuses some on purpose:
    /// e.g. a stray-bytes warning during the scan; the reference cannot write CMYK as PPM).
    private func fixtureFiles(_ directory: URL, reference: Reference) throws -> [URL] {
        let manifest = directory.appendingPathComponent("MANIFEST.tsv")
        var names: [String] = []
        if let text = try? String(contentsOf: manifest, encoding: .utf8) {
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
                if columns.count > 6, columns[6] == "decode-ok" { names.append(String(columns[0])) }
            }
        } else {
            names = (try FileManager.default.contentsOfDirectory(atPath: directory.path))
                .filter { $0.hasSuffix(".jpg") }.sorted()
        }
        let probe = work.appendingPathComponent("probe.jpg")
        return names.map { directory.appendingPathComponent($0) }.filter { file in
            guard (try? JPEGPipeline.recompress(input: file, output: probe)) != nil else { return false }
            let (_, first, second) = (try? reference.run(file, output: probe)) ?? (0, 1, 1)
            return first == 0 && second == 0
        }
    }

    /// The 12 MP photo, generated once per work folder.
    private func generateLargePhoto() throws -> URL {
        let url = work.appendingPathComponent("generated-12mp.jpg")
        if !FileManager.default.fileExists(atPath: url.path) {
            note("generating a 12 MP test photo")
            try Self.generatePhoto(width: Self.width, height: Self.height, quality: 92, to: url)
        }
        return url
    }

    /// Writes a photo-like image (gradients, texture, noise) encoded with JQCJPEG's encoder at `quality`
    /// (92 is what a camera writes). Deterministic.
    static func generatePhoto(width: Int, height: Int, quality: Int, to url: URL) throws {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var random = SeededGenerator(seed: UInt64(width * height))
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let fy = Double(y) / Double(height)
                for x in 0..<width {
                    let fx = Double(x) / Double(width)
                    let texture = 24 * sin(Double(x) * 0.07) * cos(Double(y) * 0.05)
                    let noise = Double(Int(random.next() % 17) - 8)
                    let base = (y * width + x) * 3
                    buffer[base] = clamp(60 + 150 * fx + texture + noise)
                    buffer[base + 1] = clamp(90 + 110 * fy - texture * 0.5 + noise)
                    buffer[base + 2] = clamp(140 + 80 * (fx * fy) + texture * 0.3 + noise)
                }
            }
        }
        let image = try PixelImage(width: width, height: height, channels: 3, pixels: pixels)
        try JPEGCodec.encode(image, quality: quality).write(to: url)
    }

    /// `jpeg` with an EXIF APP1 segment (big-endian TIFF, IFD 0 holding only Orientation = `value`) right
    /// after SOI, as a phone writes a portrait photo.
    static func withOrientation(_ value: UInt16, _ jpeg: Data) -> Data {
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8,  // "MM", 42, IFD 0 at offset 8
            0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, UInt8(value >> 8), UInt8(value & 0xFF), 0, 0,  // Orientation, SHORT
            0, 0, 0, 0,  // no IFD 1
        ]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)])
        out.append(contentsOf: payload)
        out.append(jpeg.dropFirst(2))
        return out
    }

    // MARK: - Measuring

    /// Our side on one file: the import as the app runs it, or the same bytes without the fsyncs.
    private func ours(_ file: URL, to output: URL, write: Write) throws -> Int {
        switch write {
        case .atomic:
            return try JPEGPipeline.recompress(input: file, output: output).outputBytes
        case .plain:
            let (jpeg, result) = try JPEGPipeline.recompress(try Data(contentsOf: file, options: .alwaysMapped))
            try jpeg.write(to: output)
            return result.outputBytes
        }
    }

    /// One of our sides in a comparison.
    struct Variant {
        let label: String
        let write: Write
        /// No target applies: reported for context.
        var information = false
    }

    /// Runs every variant and the reference on each file in turn, round after round (round 0 warms caches
    /// and is not counted), so all of them see the same machine; one row per variant, each against the
    /// reference's median round.
    private func compare(_ variants: [Variant], files: [URL], reference: Reference, rounds: Int? = nil) throws
        -> [ReportRow]
    {
        let rounds = rounds ?? self.rounds
        guard !files.isEmpty else {
            return variants.map {
                .skipped($0.label, target: "ours/ref time ≤ 1.00×", why: "no fixture was accepted by both sides")
            }
        }
        let oursDirectory = work.appendingPathComponent("ours", isDirectory: true)
        let refDirectory = work.appendingPathComponent("ref", isDirectory: true)
        for directory in [oursDirectory, refDirectory] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        var ours = [Samples](repeating: Samples(), count: variants.count)
        var oursCPU = ours
        var theirs = Samples()
        var theirsCPU = Samples()
        var bytesIn = 0
        var oursBytes = [Int](repeating: 0, count: variants.count)
        // Per file and side, every counted round: a photo's median shows its typical cost apart from stalls.
        var oursPerFile = [[Samples]](
            repeating: [Samples](repeating: Samples(), count: files.count), count: variants.count)
        var theirsPerFile = [Samples](repeating: Samples(), count: files.count)
        var refBytes = 0
        for round in 0...rounds {
            var oursRound = [Double](repeating: 0, count: variants.count)
            var oursCPURound = oursRound
            var refRound = 0.0
            var refCPURound = 0.0
            for (fileIndex, file) in files.enumerated() {
                let oursOut = oursDirectory.appendingPathComponent(file.lastPathComponent)
                let refOut = refDirectory.appendingPathComponent(file.lastPathComponent)
                for (index, variant) in variants.enumerated() {
                    var written = 0
                    let cpuBefore = processCPUSeconds()
                    let spent = try seconds { written = try self.ours(file, to: oursOut, write: variant.write) }
                    oursRound[index] += spent
                    if round > 0 { oursPerFile[index][fileIndex].add(spent) }
                    oursCPURound[index] += processCPUSeconds() - cpuBefore
                    if round == 0 { oursBytes[index] += written }
                }
                let childrenBefore = childrenCPUSeconds()
                let (elapsed, first, second) = try reference.run(file, output: refOut)
                refCPURound += childrenCPUSeconds() - childrenBefore
                guard first == 0, second == 0 else {
                    throw BenchError("child-failed", "djpeg | cjpeg failed on \(file.lastPathComponent).")
                }
                refRound += elapsed
                if round > 0 { theirsPerFile[fileIndex].add(elapsed) }
                if round == 0 {
                    bytesIn += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
                    refBytes += (try? refOut.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
                }
            }
            guard round > 0 else { continue }
            for index in variants.indices {
                ours[index].add(oursRound[index])
                oursCPU[index].add(oursCPURound[index])
            }
            theirs.add(refRound)
            theirsCPU.add(refCPURound)
        }
        return variants.enumerated().map { index, variant in
            let median = ours[index].median
            note("\(variant.label): ours \(format(ms: median)), reference \(format(ms: theirs.median))")
            let how: String
            switch variant.write {
            case .atomic:
                how =
                    "ours includes EXIF orientation and the atomic write (temporary file, fsync, rename, fsync of "
                    + "the folder); the reference writes with no fsync"
            case .plain:
                how = "ours writes like the pipe's `> OUT` (no fsync), measured in the same rounds as the row above"
            }
            let oursText = "\(format(ms: median)) (\(files.count == 1 ? "1 file" : "\(files.count) files"))"
            let referenceText = "\(format(ms: theirs.median)) djpeg|cjpeg -quality 80"
            let cpu = oursCPU[index].median
            let typicalOurs = oursPerFile[index].reduce(0) { $0 + $1.median }
            let typicalTheirs = theirsPerFile.reduce(0) { $0 + $1.median }
            let typical =
                files.count == 1
                ? ""
                : "; each photo's median over the rounds adds up to \(format(ms: typicalOurs)) vs "
                    + "\(format(ms: typicalTheirs)) (\(format(ratio: typicalOurs / typicalTheirs))): a single stalled "
                    + "import does not count there"
            let notes =
                "median of \(rounds) rounds; CPU time \(format(ms: cpu)) vs \(format(ms: theirsCPU.median)) "
                + "(\(format(ratio: cpu / theirsCPU.median))); \(how); output \(oursBytes[index] / 1024) KiB vs "
                + "\(refBytes / 1024) KiB from \(bytesIn / 1024) KiB" + typical
            let ratio = median / theirs.median
            guard variant.information else {
                return .ratio(
                    variant.label, ours: oursText, reference: referenceText, ratio: ratio, atMost: 1.0,
                    target: "ours/ref time ≤ 1.00×", note: notes)
            }
            return ReportRow(
                benchmark: variant.label, ours: oursText, reference: referenceText, ratio: format(ratio: ratio),
                target: "information", verdict: .info, note: notes)
        }
    }

    private func peakRSS(_ photo: URL, turned: URL, reference: Reference) throws -> [ReportRow] {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let output = work.appendingPathComponent("rss.jpg").path
        let tiny = work.appendingPathComponent("tiny.jpg")
        try JPEGCodec.encode(
            try PixelImage(width: 16, height: 16, channels: 1, pixels: (0..<256).map { UInt8($0) }), quality: 90
        )
        .write(to: tiny)
        let baselineKiB = try Child.peakRSSKiB([me, "import-once", tiny.path, output])
        let refKiB = try Child.peakRSSKiB([
            "/bin/sh", "-c",
            "\(reference.djpeg) '\(photo.path)' | \(reference.cjpeg) -quality 80 > '\(work.path)/rss-ref.jpg'",
        ])
        let decodedKiB = Self.width * Self.height * 3 / 1024
        let limit = 2 * decodedKiB
        var rows: [ReportRow] = []
        for (label, file) in [("orientation 1, streamed", photo), ("orientation 6, one image held", turned)] {
            let oursKiB = try Child.peakRSSKiB([me, "import-once", file.path, output])
            let filesKiB =
                ((try? Data(contentsOf: file).count) ?? 0) / 1024
                + ((try? Data(contentsOf: URL(fileURLWithPath: output)).count) ?? 0) / 1024
            rows.append(
                .ratio(
                    "Photo import peak RSS, one 12 MP import (\(label))", ours: format(kib: oursKiB),
                    reference: "2 × decoded = \(format(kib: limit))", ratio: Double(oursKiB) / Double(limit),
                    atMost: 1.0, target: "≤ 2× one decoded image",
                    note: "GNU time, whole jqc-bench process (runtime included): \(format(kib: oursKiB - baselineKiB)) "
                        + "over the \(format(kib: baselineKiB)) of a 16×16 import, of which \(format(kib: filesKiB)) "
                        + "are the memory-mapped input and the output built in memory; one decoded image is "
                        + "\(format(kib: decodedKiB)); djpeg|cjpeg stream scanlines and peak at \(format(kib: refKiB))")
            )
        }
        return rows
    }
}

/// `djpeg IN | cjpeg -quality 80 > OUT`, two processes and a pipe (what a person would type).
struct Reference {
    let djpeg: String
    let cjpeg: String

    func run(_ input: URL, output: URL) throws -> (Double, Int32, Int32) {
        try Child.pipeline([djpeg, input.path], [cjpeg, "-quality", "80"], output: output)
    }
}

/// `jqc-bench import-once IN OUT`: one import, for GNU time's peak RSS.
enum ImportOnce {
    static func run(_ arguments: [String]) throws {
        guard arguments.count == 2 else { throw BenchError("usage", "usage: jqc-bench import-once IN OUT") }
        _ = try JPEGPipeline.recompress(
            input: URL(fileURLWithPath: arguments[0]),
            output: URL(fileURLWithPath: arguments[1]))
    }
}
