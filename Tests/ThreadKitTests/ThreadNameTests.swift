import Foundation
import Testing
import ThreadKit

@Suite struct ThreadNameTests {
    #if os(Linux)
        /// The name as the kernel shows it to `top -H` and `perf`, cut to its 15 bytes.
        @Test func aThreadIsNamedForTheKernel() throws {
            let seen = BlockingChannel<String>(capacity: 1)
            Thread.detachNewThread {
                nameCurrentThread("subdash-commit-thread")
                let path = "/proc/thread-self/comm"
                seen.send((try? String(contentsOfFile: path, encoding: .utf8)) ?? "unreadable")
            }
            let comm = try #require(seen.receive(before: Date().addingTimeInterval(5)))
            #expect(comm.trimmingCharacters(in: .newlines) == "subdash-commit-")
        }
    #endif
}
