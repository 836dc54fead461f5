import CZlib

/// Parallel gzip in the style of pigz: each chunk of lines is deflated on its own (raw
/// deflate ending in a sync flush, so chunks concatenate into one valid stream) together with
/// its CRC-32; the file writer adds the gzip header, the final empty block and the trailer.
struct GzipSegment: Sendable {
    let deflated: [UInt8]
    let crc: UInt
    let length: Int

    init(compressing input: [UInt8], level: Int32 = 6) {
        length = input.count
        crc = input.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, UInt32($0.count)) }
        var stream = z_stream()
        let status = deflateInit2_(
            &stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed (\(status))")
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: max(4096, Int(deflateBound(&stream, UInt(input.count))) + 64))
        input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            repeat {
                let produced: Int = buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    _ = deflate(&stream, Z_SYNC_FLUSH)
                    return target.count - Int(stream.avail_out)
                }
                out.append(contentsOf: buffer[0..<produced])
            } while stream.avail_out == 0
        }
        deflateEnd(&stream)
        deflated = out
    }

    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]
    /// A final, empty, fixed-Huffman block.
    static let finalBlock: [UInt8] = [0x03, 0x00]

    static func combine(_ crc: UInt, _ next: GzipSegment) -> UInt {
        CZlib.crc32_combine(crc, next.crc, Int(next.length))
    }

    static func trailer(crc: UInt, length: Int) -> [UInt8] {
        let c = UInt32(truncatingIfNeeded: crc)
        let n = UInt32(truncatingIfNeeded: length)
        return [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: c >> $0) }
            + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: n >> $0) }
    }
}
