import Foundation
import TestSupport
import Testing

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
