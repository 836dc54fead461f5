import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The listener on a bad day: a request log it cannot write, a disk without room for a commit.
/// Whatever cannot be logged, every notification is still stored and answered; `/healthz` says
/// what went wrong.
@Suite(.serialized) struct ListenerFailureTests {
    @Test func aLogOnAFullDiskIsCountedNeverFatal() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("full-log") + ".sqlite"
        defer { ListenTests.remove(store) }
        let documents = try ListenTests.v2.get()
        // Every write to /dev/full fails with ENOSPC, as a log on a full disk does.
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--log", "/dev/full"])
        for body in documents.prefix(3) {
            let answer = try listener.http.post("/notifications", body)
            #expect(answer.status == 200 && answer.body == "applied\n")
        }
        let health = try listener.http.get("/healthz")
        #expect(health.status == 200, "a lost log line keeps no notification out")
        #expect(health.body.contains("request log: 3 lines not written (No space left on device)"), "\(health.body)")
        #expect(listener.stop().status == 0)
        for body in documents.prefix(3) { #expect(try ListenTests.outcome(of: body, in: store) == "applied") }
        // Said once on stderr, however many lines were lost.
        let said = listener.stderr.components(separatedBy: "cannot write the request log to /dev/full: No space left on device")
        #expect(said.count == 2, "\(listener.stderr)")
        #expect(listener.stderr.contains("stopped; everything answered 200 is in"))
    }

    @Test func stderrPipedToAReaderThatExitedIsCountedNeverFatal() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("closed-stderr") + ".sqlite"
        defer { ListenTests.remove(store) }
        let documents = try ListenTests.v2.get()
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot])
        // `subdash listen 2>&1 | head -1`: the reader has read the first line and gone.
        listener.closeStandardError()
        for body in documents.prefix(3) {
            let answer = try listener.http.post("/notifications", body)
            #expect(answer.status == 200 && answer.body == "applied\n")
        }
        let health = try listener.http.get("/healthz")
        #expect(health.status == 200)
        #expect(health.body.contains("request log: 3 lines not written (Broken pipe)"), "\(health.body)")
        let stopped = listener.stop()
        #expect(stopped.reason == .exit && stopped.status == 0)
        for body in documents.prefix(3) { #expect(try ListenTests.outcome(of: body, in: store) == "applied") }
    }

    /// Runs `tool` to its end; whether it exited 0.
    static func succeeds(_ tool: String, _ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Writes zeros to a new file at `path` until the file system is full.
    static func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 64 << 10)
        while chunk.withUnsafeBufferPointer({ write(fd, $0.baseAddress!, $0.count) }) > 0 {}
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small file system takes root"))
    func onAFullDiskPostsAre503AndHealthzSaysSoUntilACommitSucceeds() throws {
        let binary = try ListenTests.binary()
        let directory = try TemporaryDirectory("full-disk")
        defer { directory.remove() }
        // A disk of its own, 8 MiB: filled by a file, emptied by removing it.
        try #require(try Self.succeeds("/bin/mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", directory.path]))
        defer { _ = try? Self.succeeds("/bin/umount", [directory.path]) }
        let store = directory.path("store.sqlite")
        let documents = try ListenTests.v2.get()
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--min-free-mib", "1"])
        #expect(try listener.http.post("/notifications", documents[0]).status == 200)
        #expect(try listener.http.get("/healthz").status == 200)

        Self.fill(directory.path("filler"))
        // Free space is measured at most once a second.
        Thread.sleep(forTimeInterval: 1.1)
        let full = try listener.http.get("/healthz")
        #expect(full.status == 503)
        #expect(full.body.hasPrefix("unhealthy: free space below what a commit needs\n"), "\(full.body)")
        // The WAL's pages already on disk take a few more commits; then one needs room there is not.
        var refusedIndex: Int?
        for (i, body) in documents.enumerated().dropFirst() {
            let answer = try listener.http.post("/notifications", body)
            if answer.status == 503 {
                #expect(answer.body == "not stored, send again later\n")
                refusedIndex = i
                break
            }
        }
        let refused = try #require(refusedIndex, "a full disk refused no commit")
        let failed = try listener.http.get("/healthz")
        #expect(
            failed.body.hasPrefix("unhealthy: free space below what a commit needs; the last commit failed\n"), "\(failed.body)")

        try FileManager.default.removeItem(atPath: directory.path("filler"))
        Thread.sleep(forTimeInterval: 1.1)
        // Room again, but no commit has succeeded since the failure.
        let waiting = try listener.http.get("/healthz")
        #expect(waiting.status == 503 && waiting.body.hasPrefix("unhealthy: the last commit failed\n"), "\(waiting.body)")
        // Apple's retry is stored, and /healthz is well again.
        #expect(try listener.http.post("/notifications", documents[refused]).status == 200)
        let well = try listener.http.get("/healthz")
        #expect(well.status == 200 && well.body.hasPrefix("ok\n"), "\(well.body)")
        #expect(listener.stop().status == 0)
        #expect(listener.stderr.contains("full"), "the request log names the failure")
    }

    @Test func healthzFailsWhenFreeSpaceIsBelowWhatACommitNeeds() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("no-room") + ".sqlite"
        defer { ListenTests.remove(store) }
        // No disk here has a pebibyte free: the threshold stands for a disk that is nearly full.
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--min-free-mib", "1073741824"])
        let health = try listener.http.get("/healthz")
        #expect(health.status == 503)
        #expect(health.body.hasPrefix("unhealthy: free space below what a commit needs\n"), "\(health.body)")
        #expect(health.body.contains("(at least 1073741824 MiB needed for a commit)"))
        #expect(listener.stop().status == 0)

        let roomy = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot])
        let fine = try roomy.http.get("/healthz")
        #expect(fine.status == 200)
        #expect(fine.body.hasPrefix("ok\nfree space: "))
        #expect(fine.body.contains("(at least 64 MiB needed for a commit)"))
        #expect(roomy.stop().status == 0)
    }
}
