import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Cuts a file's bytes into documents (docs/architecture.md, "From a file to a figure on screen"):
/// one JSON document (pretty-printed or not), a JSON array of documents (`index N`), NDJSON (`line
/// N`, blank lines skipped), bare compact JWS lines, or a customers CSV (`line N`, one document per
/// row). gzip'd input (`.gz`, or any file starting with the gzip magic bytes) is decompressed on
/// the fly.
///
/// A document over `sizeLimit` is rejected on its own, without its bytes ever being held; a
/// line that is not JSON is left for the decoder to reject, so only that line fails.
public struct DocumentReader: Sendable {
    public static let defaultSizeLimit = 16 << 20

    public var sizeLimit: Int

    public init(sizeLimit: Int = DocumentReader.defaultSizeLimit) { self.sizeLimit = sizeLimit }

    /// The documents of bytes already in memory. `name` (a file name) only serves as a hint:
    /// `.csv` or `.csv.gz` means a customers CSV.
    public func documents(in data: Data, name: String = "") -> [SourceDocument] {
        Array(DocumentStream(source: MemoryChunks(data), name: name, sizeLimit: sizeLimit))
    }

    /// Streams the documents of a file, reading it a chunk at a time.
    /// Only a regular file or a pipe is read: opening does not wait for a FIFO's writer, and a
    /// device (`/dev/zero`) or directory is refused.
    public func documents(atPath path: String) throws(PayloadError) -> DocumentStream {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PayloadError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        let type = fstat(descriptor, &info) == 0 ? info.st_mode & S_IFMT : 0
        guard type == S_IFREG || type == S_IFIFO else {
            close(descriptor)
            throw PayloadError("cannot read \(path): \(type == S_IFDIR ? "a directory" : "not a regular file")")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return DocumentStream(
            source: FileChunks(descriptor: descriptor, closesDescriptor: true),
            name: path, sizeLimit: sizeLimit)
    }

    /// Streams the documents of an open descriptor (`0` for stdin); the descriptor stays open.
    public func documents(fileDescriptor: Int32, name: String = "stdin") -> DocumentStream {
        DocumentStream(
            source: FileChunks(descriptor: fileDescriptor, closesDescriptor: false),
            name: name, sizeLimit: sizeLimit)
    }

    /// "document is 52428800 bytes, over the 16 MiB limit".
    static func overLimit(_ count: Int, limit: Int) -> PayloadError {
        let shown = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
        return PayloadError("document is \(count) bytes, over the \(shown) limit")
    }
}

/// The documents of one file, in order. Reading is lazy: a document is cut out when asked for.
public final class DocumentStream: Sequence, IteratorProtocol {
    private var source: any ByteChunks
    private let name: String
    private let sizeLimit: Int

    private var buffer: [UInt8] = []
    private var start = 0
    private var scanned = 0
    private var sourceEnded = false
    private var sourceError: PayloadError?
    private var lineNumber = 0
    /// Bytes dropped from the front of `buffer` so far: `buffer[i]` is byte `dropped + i` of the file.
    private var dropped = 0
    /// The next element's index in a JSON array, and whether its ',' or ']' is still to come.
    private var arrayIndex = 0
    private var arrayAfterElement = false

    private enum Mode {
        case undecided
        case lines
        case csv(header: [UInt8])
        case array
        case queued([SourceDocument])
        case finished
    }
    private var mode = Mode.undecided

    init(source: any ByteChunks, name: String, sizeLimit: Int) {
        self.source = source
        self.name = name
        self.sizeLimit = sizeLimit
    }

    public func makeIterator() -> DocumentStream { self }

    public func next() -> SourceDocument? {
        while true {
            switch mode {
            case .undecided:
                decideMode()
            case .lines:
                guard let line = nextLine() else { return finish() }
                switch line {
                case .text(let bytes):
                    guard let trimmed = trim(bytes) else { continue }
                    if let tooLong = overLimit(trimmed) { return tooLong }
                    return SourceDocument(location: "line \(lineNumber)", bytes: Data(trimmed))
                case .tooLong(let count):
                    return SourceDocument(
                        location: "line \(lineNumber)", bytes: nil, byteCount: count,
                        rejection: DocumentReader.overLimit(count, limit: sizeLimit))
                }
            case .csv(let header):
                guard let line = nextLine() else { return finish() }
                switch line {
                case .text(let bytes):
                    guard let trimmed = trim(bytes) else { continue }
                    if let tooLong = overLimit(trimmed) { return tooLong }
                    return SourceDocument(location: "line \(lineNumber)", bytes: Data(header + [0x0A] + trimmed))
                case .tooLong(let count):
                    return SourceDocument(
                        location: "line \(lineNumber)", bytes: nil, byteCount: count,
                        rejection: DocumentReader.overLimit(count, limit: sizeLimit))
                }
            case .array:
                guard let document = nextArrayElement() else { return finish() }
                return document
            case .queued(var documents):
                guard !documents.isEmpty else { return finish() }
                let document = documents.removeFirst()
                mode = .queued(documents)
                return document
            case .finished:
                return nil
            }
        }
    }

    private func overLimit(_ line: ArraySlice<UInt8>) -> SourceDocument? {
        guard line.count > sizeLimit else { return nil }
        return SourceDocument(
            location: "line \(lineNumber)", bytes: nil, byteCount: line.count,
            rejection: DocumentReader.overLimit(line.count, limit: sizeLimit))
    }

    /// Ends the stream, reporting a read error (I/O, corrupt or truncated gzip) once.
    private func finish() -> SourceDocument? {
        mode = .finished
        guard let error = sourceError else { return nil }
        sourceError = nil
        return SourceDocument(location: lineNumber > 0 ? "line \(lineNumber + 1)" : nil, bytes: nil, rejection: error)
    }

    // MARK: - Deciding the shape of the file

    private func decideMode() {
        // Look at the first line that holds something (without consuming it). Blank lines before
        // it are consumed as they are passed, so a file of blank lines is read in one pass and
        // never held whole.
        var firstByte: Int?
        var lineEnd: Int?
        var probe = start
        var newlineSearch = start
        if dropped == 0, buffer.isEmpty { fill() }
        if dropped == 0, start == 0, buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            start = 3
            probe = 3
            newlineSearch = 3
        }
        while true {
            if firstByte == nil {
                while probe < buffer.count, JSONScanner.isWhitespace(buffer[probe]) {
                    if buffer[probe] == 0x0A {
                        lineNumber += 1
                        start = probe + 1
                    }
                    probe += 1
                }
                if probe < buffer.count {
                    firstByte = probe
                    newlineSearch = probe
                }
            }
            if let first = firstByte {
                if let newline = buffer[newlineSearch...].firstIndex(of: 0x0A) {
                    lineEnd = newline
                    break
                }
                newlineSearch = buffer.count
                if buffer.count - first > sizeLimit { break }
            }
            if sourceEnded { break }
            let before = start
            fill()
            let shift = before - start
            probe -= shift
            newlineSearch -= shift
            if let first = firstByte { firstByte = first - shift }
        }
        scanned = start
        guard let first = firstByte else {
            // Nothing but whitespace, or nothing at all: a read error (a header-only gzip file)
            // is still reported.
            mode = .queued([])
            return
        }
        let end = lineEnd ?? buffer.count
        let isCSVName = name.hasSuffix(".csv") || name.hasSuffix(".csv.gz")

        switch buffer[first] {
        case UInt8(ascii: "[") where !isCSVName:
            start = first + 1
            mode = .array
        case UInt8(ascii: "{") where !isCSVName:
            let outcome = buffer.withUnsafeBufferPointer { all in
                JSONScanner.scanValue(UnsafeBufferPointer(rebasing: all[..<end]), from: first)
            }
            if outcome == .incomplete && lineEnd != nil {
                wholeDocument(from: first)
            } else {
                mode = .lines
            }
        default:
            let line = Substring(String(decoding: buffer[first..<end], as: UTF8.self))
            if CustomersCSV.header(line) != nil {
                let header = trim(buffer[first..<end]).map(Array.init) ?? []
                skipThroughFirstLine()
                mode = .csv(header: header)
            } else if isCSVName {
                skipThroughFirstLine()
                mode = .queued([
                    SourceDocument(
                        location: "line \(lineNumber)", bytes: nil,
                        rejection: PayloadError(CustomersCSV.headerProblem(line)))
                ])
            } else {
                mode = .lines
            }
        }
    }

    /// Consumes the blank lines before the first line that holds something, and that line.
    private func skipThroughFirstLine() {
        while let line = nextLine() {
            if case .text(let bytes) = line, trim(bytes) == nil { continue }
            return
        }
    }

    /// A pretty-printed document: the whole file is one document.
    private func wholeDocument(from first: Int) {
        let total = readToEnd(limit: sizeLimit)
        guard total <= sizeLimit, let bytes = trim(buffer[first...]) else {
            mode = .queued([
                SourceDocument(
                    location: nil, bytes: nil, byteCount: total,
                    rejection: DocumentReader.overLimit(total, limit: sizeLimit))
            ])
            return
        }
        var documents = [SourceDocument(location: nil, bytes: Data(bytes))]
        if let error = sourceError {
            documents[0] = SourceDocument(location: nil, bytes: Data(bytes), rejection: error)
            sourceError = nil
        }
        mode = .queued(documents)
    }

    // MARK: - JSON arrays

    /// The next element of a JSON array, read as it streams in: only the element being cut
    /// out is held (at most the size limit), whatever the size of the array or of the
    /// whitespace around its elements.
    private func nextArrayElement() -> SourceDocument? {
        if arrayAfterElement {
            guard skipWhitespace() else { return arrayEnded("truncated file: it ends before the JSON array's closing ']'") }
            switch buffer[start] {
            case UInt8(ascii: ","):
                start += 1
            case UInt8(ascii: "]"):
                start += 1
                if skipWhitespace() {
                    return arrayEnded(
                        "invalid JSON at byte \(dropped + start) of the file: content after the JSON array's closing ']'")
                }
                mode = .finished
                return finish()
            default:
                return arrayEnded(
                    "invalid JSON at byte \(dropped + start) of the file: expected ',' or ']' after an array element")
            }
        } else if arrayIndex == 0 {
            guard skipWhitespace() else { return arrayEnded("truncated file: it ends inside the JSON array, before element 0") }
            if buffer[start] == UInt8(ascii: "]") {
                start += 1
                if skipWhitespace() {
                    return arrayEnded(
                        "invalid JSON at byte \(dropped + start) of the file: content after the JSON array's closing ']'")
                }
                return finish()
            }
        }
        guard skipWhitespace() else {
            return arrayEnded("truncated file: it ends inside the JSON array, before element \(arrayIndex)")
        }
        while true {
            let outcome = buffer.withUnsafeBufferPointer { all in
                JSONScanner.scanValue(UnsafeBufferPointer(rebasing: all[start...]), from: 0)
            }
            switch outcome {
            case .complete(let length):
                let index = arrayIndex
                arrayIndex += 1
                arrayAfterElement = true
                defer { start += length }
                if length > sizeLimit {
                    return SourceDocument(
                        location: "index \(index)", bytes: nil, byteCount: length,
                        rejection: DocumentReader.overLimit(length, limit: sizeLimit))
                }
                return SourceDocument(location: "index \(index)", bytes: Data(buffer[start..<(start + length)]))
            case .invalid(let at):
                return arrayEnded("invalid JSON at byte \(dropped + start + at) of the file: expected an array element")
            case .incomplete:
                if buffer.count - start > sizeLimit {
                    let index = arrayIndex
                    arrayIndex += 1
                    arrayAfterElement = true
                    guard let count = skipOversizeElement() else {
                        return arrayEnded("truncated file: it ends inside this element of the JSON array")
                    }
                    return SourceDocument(
                        location: "index \(index)", bytes: nil, byteCount: count,
                        rejection: DocumentReader.overLimit(count, limit: sizeLimit))
                }
                if sourceEnded { return arrayEnded("truncated file: it ends inside this element of the JSON array") }
                fill()
            }
        }
    }

    /// The array cannot be read further: one rejection (the read error if there was one, which
    /// explains the truncation) at the current element, and the end of the file.
    private func arrayEnded(_ reason: String) -> SourceDocument {
        let error = sourceError ?? PayloadError(reason)
        sourceError = nil
        mode = .finished
        buffer.removeAll()
        start = 0
        return SourceDocument(location: "index \(arrayIndex)", bytes: nil, rejection: error)
    }

    /// Moves `start` past whitespace, reading more as needed; false at the end of the input.
    private func skipWhitespace() -> Bool {
        while true {
            while start < buffer.count, JSONScanner.isWhitespace(buffer[start]) { start += 1 }
            if start < buffer.count { return true }
            if sourceEnded { return false }
            fill()
        }
    }

    /// Counts and drops an array element too large to keep, from `start` to its end (by nesting
    /// and strings only: it is rejected anyway). Nil when the input ends first.
    private func skipOversizeElement() -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        var count = 0
        let opener = buffer[start]
        let scalar = opener != UInt8(ascii: "{") && opener != UInt8(ascii: "[") && opener != UInt8(ascii: "\"")
        while true {
            var i = start
            while i < buffer.count {
                let byte = buffer[i]
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 {
                            i += 1
                            count += i - start
                            start = i
                            return count
                        }
                    }
                } else if scalar {
                    if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || JSONScanner.isWhitespace(byte) {
                        count += i - start
                        start = i
                        return count
                    }
                } else {
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            count += i - start
                            start = i
                            return count
                        }
                    default: break
                    }
                }
                i += 1
            }
            count += buffer.count - start
            dropped += buffer.count
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanned = 0
            guard let chunk = readChunk() else { return nil }
            buffer = chunk
        }
    }

    // MARK: - Lines

    private enum Line {
        case text(ArraySlice<UInt8>)
        case tooLong(Int)
    }

    /// The next line (without its newline), or nil at the end. A line over the limit is
    /// counted while its bytes are dropped.
    private func nextLine() -> Line? {
        while true {
            if let newline = buffer[Swift.max(scanned, start)...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                scanned = start
                lineNumber += 1
                return .text(line)
            }
            scanned = buffer.count
            if buffer.count - start > sizeLimit {
                lineNumber += 1
                return .tooLong(skipRestOfLine(counted: buffer.count - start))
            }
            if sourceEnded {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                scanned = start
                lineNumber += 1
                return .text(line)
            }
            fill()
        }
    }

    private func skipRestOfLine(counted: Int) -> Int {
        var count = counted
        dropped += buffer.count
        buffer.removeAll(keepingCapacity: false)
        start = 0
        scanned = 0
        while let chunk = readChunk() {
            if let newline = chunk.firstIndex(of: 0x0A) {
                count += newline
                buffer = Array(chunk[(newline + 1)...])
                return count
            }
            count += chunk.count
        }
        return count
    }

    // MARK: - Reading

    private func readChunk() -> [UInt8]? {
        guard !sourceEnded else { return nil }
        do throws(PayloadError) {
            if let chunk = try source.next() {
                if !decidedCompression {
                    decidedCompression = true
                    if GzipChunks.isGzip(chunk) {
                        source = try GzipChunks(source: source, first: chunk)
                        return readChunk()
                    }
                    if name.hasSuffix(".gz") {
                        throw PayloadError("not gzip data: the file is named .gz but does not start with the gzip magic bytes")
                    }
                }
                return chunk
            }
        } catch {
            sourceError = error
        }
        if !decidedCompression && name.hasSuffix(".gz") {
            sourceError = PayloadError("empty gzip file: it holds no data at all")
        }
        decidedCompression = true
        sourceEnded = true
        return nil
    }
    private var decidedCompression = false

    private func fill() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(..<start)
            dropped += start
            scanned -= start
            start = 0
        }
        if let chunk = readChunk() { buffer += chunk }
    }

    /// Reads the rest of the source into the buffer and returns the size from `start`. Past
    /// `limit`, the bytes are counted and dropped.
    @discardableResult
    private func readToEnd(limit: Int?) -> Int {
        while !sourceEnded {
            if let limit, buffer.count - start > limit {
                var count = buffer.count - start
                buffer.removeAll()
                start = 0
                while let chunk = readChunk() { count += chunk.count }
                return count
            }
            fill()
        }
        return buffer.count - start
    }

    private func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let first = bytes.firstIndex(where: { !JSONScanner.isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !JSONScanner.isWhitespace($0) })
        else { return nil }
        return bytes[first...last]
    }
}
