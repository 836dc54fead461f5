import Foundation
import Testing

@testable import AppStoreFake
@testable import AppStoreServerAPI

/// Every fetch ends, whatever the server does: pages that hand back a token already followed, a
/// body trickled after a prompt head, a body larger than `--max-document-bytes`.
@Suite struct FetchEndsTests {
    /// A notification history page with one signed notification, `hasMore`, and `token`.
    static func notificationPage(_ n: Int, token: String, fake: FakeAppStore) -> String {
        let payload = fake.sign(FetchTests.notification(n, store: fake))
        return
            #"{"hasMore":true,"paginationToken":"\#(token)","notificationHistory":[{"sendAttempts":[],"signedPayload":"\#(payload)"}]}"#
    }

    @Test func aPaginationTokenThatComesBackStopsTheWalkWithoutAskingAgain() async throws {
        let fake = try FetchTests.fake()
        // A, B, A, B, …: each token differs from the one before, so only a walk that remembers
        // every token it followed notices.
        fake.script(
            .status(200, body: Self.notificationPage(0, token: "A", fake: fake)),
            .status(200, body: Self.notificationPage(1, token: "B", fake: fake)),
            .status(200, body: Self.notificationPage(2, token: "A", fake: fake)),
            .status(200, body: Self.notificationPage(3, token: "B", fake: fake)))
        var pages: [Int] = []
        await #expect(
            throws: AppStoreAPIError(
                "POST /inApps/v1/notifications/history: page 3 gives the paginationToken 'A' that page 2 was asked with: "
                    + "the server is sending the same pages again; stopped after 3 pages")
        ) {
            try await fake.serve { base in
                let client = AppStoreServerClient(
                    credentials: FetchTests.credentials(), baseURL: base, requestTimeoutSeconds: FetchTests.patientTimeout)
                defer { Task { try await client.shutdown() } }
                try await client.notificationHistory(startMilliseconds: 1_700_000_000_000, endMilliseconds: 1_800_000_000_000) {
                    _, page in pages.append(page)
                }
            }
        }
        #expect(pages == [1, 2, 3], "every page received is handed on (and stored) before the walk stops")
        #expect(fake.requests.map { $0.query["paginationToken"] } == [nil, "A", "B"])
    }

    @Test func aBodyTrickledAfterAPromptHeadIsTimedOutAsAWhole() async throws {
        let fake = try FetchTests.fake()
        let waits = FetchTests.Waits()
        // Each answer: the head at once, then a space every 100 ms for a minute, well inside any
        // read timeout.
        for _ in 0..<4 { fake.script(.stream(chunk: " ", count: 600, interval: .milliseconds(100))) }
        await #expect(throws: AppStoreAPIError("GET /inApps/v1/subscriptions/1000: timed out (after 4 attempts)")) {
            try await fake.serve { base in
                let client = AppStoreServerClient(
                    credentials: FetchTests.credentials(), baseURL: base, retry: waits.policy, requestTimeoutSeconds: 2)
                defer { Task { try await client.shutdown() } }
                _ = try await client.subscriptionStatuses("1000")
            }
        }
        // Each attempt was cut at its 2 s, long before its minute of trickle ended: of the 600
        // chunks each answer would send, few were sent. Asserted by chunks, not by the time taken:
        // in a full parallel run on two cores the test's own tasks wait for the cooperative pool
        // long enough (over 300 s once) to make any bound on time fail, while fewer chunks are sent,
        // not more, when the machine is loaded.
        #expect(fake.streamedChunks < 4 * 300, "each attempt ended before half its body: \(fake.streamedChunks) chunks sent")
        #expect(fake.requests.count == 4)
        #expect(waits.all.count == 3)
    }

    @Test func aBodyOverTheLimitWithItsLengthIsNotRead() async throws {
        let fake = try FetchTests.fake()
        fake.script(.status(200, body: String(repeating: " ", count: 100_000)))
        let page = try await fake.serve { base in
            let client = AppStoreServerClient(
                credentials: FetchTests.credentials(), baseURL: base, requestTimeoutSeconds: FetchTests.patientTimeout,
                maxDocumentBytes: 65_536)
            defer { Task { try await client.shutdown() } }
            return try await client.subscriptionStatuses("1000")
        }
        #expect(
            page
                == .tooLarge(
                    byteCount: 100_000,
                    reason: "document is 100000 bytes, over the 65536 bytes limit (--max-document-bytes); not read"))
    }

    @Test func aStreamedBodyOverTheLimitIsLeftUnreadPastIt() async throws {
        let fake = try FetchTests.fake()
        // 64 MiB in 16 KiB chunks, without a length; the limit is 1 MiB.
        fake.script(.stream(chunk: String(repeating: " ", count: 16_384), count: 4_096, interval: .zero))
        let page = try await fake.serve { base in
            let client = AppStoreServerClient(
                credentials: FetchTests.credentials(), baseURL: base, requestTimeoutSeconds: FetchTests.patientTimeout,
                maxDocumentBytes: 1 << 20)
            defer { Task { try await client.shutdown() } }
            return try await client.subscriptionStatuses("1000")
        }
        guard case .tooLarge(let count, let reason) = page else {
            Issue.record("read whole: \(page)")
            return
        }
        #expect(count > 1 << 20 && count < 2 << 20, "stopped within a read or two of the limit")
        #expect(reason == "document is over the 1 MiB limit (--max-document-bytes); stopped reading it after \(count) bytes")
        #expect(fake.streamedChunks < 4_096, "the server could not write the whole body: nobody read it")
    }

    @Test(arguments: [
        ("https://api.storekit.itunes.apple.com", true), ("http://127.0.0.1:8080", true), ("http://127.3.4.5", true),
        ("http://[::1]:8080/base", true), ("http://localhost:9", true), ("HTTPS://example.com/", true),
        ("http://api.example.com", false), ("http://10.0.0.1:8080", false), ("http://127.0.0.1.example.com", false),
        ("ftp://127.0.0.1", false), ("api.example.com", false), ("https://user:secret@example.com", false),
        ("https://example.com/?x=1", false),
    ])
    func theBaseURLIsHttpsOrLoopback(url: String, accepted: Bool) {
        #expect(((try? APIBase(url, source: "--api-base")) != nil) == accepted, "\(url)")
    }

    @Test func plainHttpElsewhereIsRefusedSayingWhy() {
        #expect(
            throws: AppStoreAPIError(
                "SUBDASH_API_BASE http://api.example.com: refused: every request carries the bearer token, which plain "
                    + "http would send in clear; use https (plain http only to loopback: 127.0.0.1, ::1, localhost)")
        ) { try APIBase("http://api.example.com", source: "SUBDASH_API_BASE") }
    }
}
