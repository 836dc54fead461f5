import CZlib
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where `DocumentReader` gets bytes from, a chunk at a time, so that a 50 MB line is counted
/// and dropped rather than held.
protocol ByteChunks: AnyObject {
    /// The next chunk, or nil at the end.
    func next() throws(PayloadError) -> [UInt8]?
}

/// Bytes already in memory, handed out in chunks.
final class MemoryChunks: ByteChunks {
    private let data: Data
    private var offset: Int
    private let chunkSize: Int

    init(_ data: Data, chunkSize: Int = 1 << 20) {
        self.data = data
        self.offset = data.startIndex
        self.chunkSize = chunkSize
    }

    func next() -> [UInt8]? {
        guard offset < data.endIndex else { return nil }
        let end = min(offset + chunkSize, data.endIndex)
        defer { offset = end }
        return [UInt8](data[offset..<end])
    }
}

/// A file descriptor (a file, or stdin) read with `read(2)`.
final class FileChunks: ByteChunks {
    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let chunkSize: Int

    init(descriptor: Int32, closesDescriptor: Bool, chunkSize: Int = 1 << 20) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
        self.chunkSize = chunkSize
    }

    deinit { if closesDescriptor { close(descriptor) } }

    func next() throws(PayloadError) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, chunkSize) }
            if count > 0 {
                chunk.removeSubrange(count...)
                return chunk
            }
            if count == 0 { return nil }
            if errno == EINTR { continue }
            throw PayloadError("cannot read the file: \(String(cString: strerror(errno)))")
        }
    }
}

/// gzip (or zlib) decompression of another source, through the CZlib target. Concatenated
/// gzip members are read one after the other, as `gunzip` does.
final class GzipChunks: ByteChunks {
    private let source: any ByteChunks
    private var stream = z_stream()
    private let input: UnsafeMutablePointer<UInt8>
    private let inputCapacity = 1 << 20
    private let output: UnsafeMutablePointer<UInt8>
    private let outputCapacity = 1 << 20
    private var sourceEnded = false
    private var memberEnded = false
    private var finished = false

    /// `first` is the chunk already read from `source` (to look for the gzip magic bytes).
    init(source: any ByteChunks, first: [UInt8]) throws(PayloadError) {
        self.source = source
        input = .allocate(capacity: max(inputCapacity, first.count))
        output = .allocate(capacity: outputCapacity)
        guard czlib_inflate_init_auto(&stream) == Z_OK else {
            input.deallocate()
            output.deallocate()
            throw PayloadError("cannot start gzip decompression")
        }
        if !first.isEmpty { first.withUnsafeBufferPointer { input.initialize(from: $0.baseAddress!, count: first.count) } }
        stream.next_in = input
        stream.avail_in = UInt32(first.count)
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
        output.deallocate()
    }

    func next() throws(PayloadError) -> [UInt8]? {
        guard !finished else { return nil }
        while true {
            if stream.avail_in == 0 && !sourceEnded {
                if let chunk = try source.next() {
                    let count = min(chunk.count, inputCapacity)
                    if count > 0 { chunk.withUnsafeBufferPointer { input.update(from: $0.baseAddress!, count: count) } }
                    stream.next_in = input
                    stream.avail_in = UInt32(count)
                    if count < chunk.count { throw PayloadError("gzip input chunk larger than the buffer") }
                } else {
                    sourceEnded = true
                }
            }
            if stream.avail_in == 0 && sourceEnded {
                finished = true
                if memberEnded { return nil }
                throw PayloadError(
                    "truncated gzip file: the compressed data ends before the end of the stream (is the file cut short?)")
            }
            if memberEnded {
                // Another gzip member follows.
                inflateReset(&stream)
                memberEnded = false
            }
            stream.next_out = output
            stream.avail_out = UInt32(outputCapacity)
            let status = inflate(&stream, Z_NO_FLUSH)
            let produced = outputCapacity - Int(stream.avail_out)
            switch status {
            case Z_STREAM_END:
                memberEnded = true
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                finished = true
                let detail = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw PayloadError("the gzip data is corrupt (\(detail))")
            }
            if produced > 0 { return [UInt8](UnsafeBufferPointer(start: output, count: produced)) }
        }
    }

    static func isGzip(_ bytes: [UInt8]) -> Bool { bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B }
}
