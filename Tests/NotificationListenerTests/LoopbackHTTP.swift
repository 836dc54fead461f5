import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A bare HTTP/1.1 client over a real TCP socket on loopback: each request on its own connection
/// (`Connection: close`), so a test controls exactly which bytes are sent and when.
struct LoopbackHTTP {
    let port: Int

    struct Response {
        var status: Int
        var body: String
    }

    /// Sends `head` (request line and headers, CRLF-separated, without the blank line), then
    /// `body`, and reads the whole response. `sendBody: false` stops after the headers, as a client
    /// waiting for the server's verdict would.
    func raw(_ head: String, body: Data = Data(), sendBody: Bool = true, timeout: Double = 20) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestError("socket: \(errno)") }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw HTTPTestError("connect to 127.0.0.1:\(port): errno \(errno)") }
        var out = Data((head + "\r\nConnection: close\r\n\r\n").utf8)
        if sendBody { out.append(body) }
        try out.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let n = send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                // The server may answer and close before taking a refused body: that is an answer.
                if n <= 0 {
                    if errno == EPIPE || errno == ECONNRESET { break }
                    throw HTTPTestError("send: errno \(errno)")
                }
                sent += n
            }
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 {
                received.append(contentsOf: chunk[0..<n])
                continue
            }
            if n == 0 || errno == ECONNRESET { break }
            throw HTTPTestError("recv: errno \(errno) after \(received.count) bytes")
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let statusLine = text.split(separator: "\r\n").first, statusLine.hasPrefix("HTTP/1.1 "),
            let status = Int(statusLine.dropFirst(9).prefix(3))
        else {
            throw HTTPTestError("no HTTP response: \(text.prefix(200))")
        }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return Response(status: status, body: body)
    }

    func post(_ path: String, _ body: Data) throws -> Response {
        try raw(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)",
            body: body)
    }

    func get(_ path: String) throws -> Response {
        try raw("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1")
    }
}

struct HTTPTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One TCP connection to the listener held open across steps, for the tests of timeouts and of
/// the connection limit: bytes are sent when the test says, and reads wait at most `timeout`.
final class OpenConnection {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw HTTPTestError("connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBufferPointer {
                Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw HTTPTestError("send: errno \(errno)") }
            sent += n
        }
    }

    enum Read: Equatable {
        /// What arrived (at least one byte).
        case data(String)
        /// The server closed the connection.
        case closed
        /// Nothing within the time given.
        case nothing
    }

    /// Waits up to `timeout` seconds for bytes or the end of the connection.
    func read(timeout: Double) -> Read {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return .nothing }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        return n > 0 ? .data(String(decoding: chunk[0..<n], as: UTF8.self)) : .closed
    }

    deinit { close(fd) }
}
