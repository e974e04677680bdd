import CEdit
import Foundation
import JQCKit

#if canImport(Glibc)
    import Glibc
#endif

/// The line editor's side of the terminal, reached from libedit's callbacks through `EL_CLIENTDATA`:
///
/// - **The character reader** (`EL_GETCFN`): waits on the terminal and on a wake-up pipe at once, decodes the
///   terminal's bytes as UTF-8 itself (whatever the locale; a byte that is not UTF-8 becomes U+FFFD and is
///   reported, never silently dropped), and stops taking characters past ``maximumLineLength`` (a pasted
///   megabyte would otherwise cost libedit a redraw of the whole line per character).
/// - **Messages while editing**: ``ShellOutput`` queues what background work writes and calls ``wake``; the
///   reader then clears the prompt and the half-typed line, prints the messages, and asks libedit to draw
///   the prompt and the line again (`EL_REFRESH`), so the line stays intact and the cursor where it was.
// because: only the reading thread touches its state; `wake` only writes a byte to a pipe.
final class EditorSession: @unchecked Sendable {
    /// The longest line the prompt takes, in characters; longer input is dropped and the line refused.
    static let maximumLineLength = 4096

    let output: ShellOutput
    let completion: any CompletionProvider
    /// What went wrong with the input of the line being read.
    private(set) var problems: LineEditor.InputProblems = []
    private var buffer: [UInt8] = []
    private var position = 0
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init(output: ShellOutput, completion: any CompletionProvider) {
        self.output = output
        self.completion = completion
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    /// Wakes the reader (from any thread): queued messages are waiting.
    var wake: @Sendable () -> Void {
        let descriptor = wakeWrite
        return {
            var byte: UInt8 = 1
            _ = Glibc.write(descriptor, &byte, 1)
        }
    }

    /// Drops what was typed ahead and not yet read by libedit (a password typed before its prompt must never
    /// become the next command: `getpass` reads the terminal itself and cannot see these bytes). Call it only
    /// between lines, while no read is in progress.
    /// - Returns: how many bytes were dropped.
    func discardTypeahead() -> Int {
        let dropped = buffer.count - position
        buffer.removeAll(keepingCapacity: true)
        position = 0
        return dropped
    }

    /// A new line begins: its problems are forgotten.
    func startLine() { problems = [] }

    /// Closes the wake-up pipe.
    func close() {
        if wakeRead >= 0 { Glibc.close(wakeRead) }
        if wakeWrite >= 0 { Glibc.close(wakeWrite) }
    }

    // MARK: Reading

    /// libedit's `EL_GETCFN`: the next character into `character`.
    /// - Returns: 1 with a character, 0 at end of input, -1 on a read error (errno set).
    func readCharacter(_ editLine: OpaquePointer, into character: UnsafeMutablePointer<wchar_t>) -> Int32 {
        var endOfInput = false
        while true {
            if let scalar = nextScalar(endOfInput: endOfInput) {
                if refusesMore(scalar, editLine) { continue }
                character.pointee = wchar_t(bitPattern: scalar.value)
                return 1
            }
            if endOfInput {
                character.pointee = 0
                return 0
            }
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&descriptors, nfds_t(wakeRead >= 0 ? 2 : 1), -1) < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                drainWake()
                printAboveLine(editLine, output.takeQueued())
            }
            if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return -1
                }
                if count == 0 { endOfInput = true }
                buffer.append(contentsOf: chunk[0..<count])
            }
        }
    }

    /// Past the limit, printable characters are dropped (editing keys still work) and the line is marked.
    private func refusesMore(_ scalar: Unicode.Scalar, _ editLine: OpaquePointer) -> Bool {
        guard scalar.value >= 0x20, scalar.value != 0x7F, let info = el_wline(editLine)?.pointee else { return false }
        guard info.buffer.distance(to: info.lastchar) >= EditorSession.maximumLineLength else { return false }
        problems.insert(.tooLong)
        return true
    }

    private func drainWake() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while scratch.withUnsafeMutableBytes({ Glibc.read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// The next scalar decoded from the buffered bytes, or `nil` when more bytes are needed. An invalid
    /// sequence (or one cut short by the end of input) yields U+FFFD and marks the line.
    private func nextScalar(endOfInput: Bool) -> Unicode.Scalar? {
        if position > 4096 {
            buffer.removeFirst(position)
            position = 0
        }
        guard position < buffer.count else { return nil }
        let lead = buffer[position]
        if lead < 0x80 {
            position += 1
            return Unicode.Scalar(lead)
        }
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, lower) = (3, 0xA0)
        case 0xED: (length, upper) = (3, 0x9F)
        case 0xE1...0xEF: length = 3
        case 0xF0: (length, lower) = (4, 0x90)
        case 0xF4: (length, upper) = (4, 0x8F)
        case 0xF1...0xF3: length = 4
        default: return invalid(consuming: 1)
        }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length {
            guard position + offset < buffer.count else { return endOfInput ? invalid(consuming: offset) : nil }
            let byte = buffer[position + offset]
            let range = offset == 1 ? lower...upper : 0x80...0xBF
            guard range.contains(byte) else { return invalid(consuming: offset) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        position += length
        return Unicode.Scalar(value) ?? invalid(consuming: 0)
    }

    private func invalid(consuming count: Int) -> Unicode.Scalar {
        position += count
        problems.insert(.invalidUTF8)
        return "\u{FFFD}"
    }

    // MARK: Printing above the line

    /// Clears the prompt and the edited line, makes `writes` (each ending in a newline), and has libedit draw
    /// the prompt and the line again below them.
    func printAboveLine(_ editLine: OpaquePointer, _ writes: [ShellOutput.QueuedWrite]) {
        guard !writes.isEmpty else { return }
        let rows = cursorRow(editLine)
        ShellOutput.write(STDOUT_FILENO, (rows > 0 ? "\u{1B}[\(rows)A" : "") + "\r\u{1B}[J")
        for write in writes { ShellOutput.write(write.descriptor, write.text) }
        jqc_el_refresh(editLine)
    }

    /// The screen row (0 = the prompt's) libedit's cursor is on, following libedit's own layout: the prompt
    /// and the characters before the cursor, wrapped at the terminal's width, wide characters two columns.
    private func cursorRow(_ editLine: OpaquePointer) -> Int {
        guard let info = el_wline(editLine)?.pointee, let start = info.buffer else { return 0 }
        var size = winsize()
        let columns = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        var row = 0
        var column = 0
        func place(_ width: Int) {
            if column + width > columns {
                row += 1
                column = 0
            }
            column += width
            if column >= columns {
                row += 1
                column = 0
            }
        }
        for _ in "jqc> ".unicodeScalars { place(1) }
        for index in 0..<start.distance(to: info.cursor) {
            let character = start[index]
            switch character {
            case 0x0A:
                row += 1
                column = 0
            case 0x09: place(8 - column % 8)
            case 0x00..<0x20, 0x7F: place(2)
            default: place(max(1, Int(jqc_wcwidth(character))))
            }
        }
        return row
    }
}
