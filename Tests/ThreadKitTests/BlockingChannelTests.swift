import Foundation
import Testing
import ThreadKit

@Suite struct BlockingChannelTests {
    @Test func valuesComeOutInTheOrderTheyWentIn() {
        let channel = BlockingChannel<Int>(capacity: 3)
        #expect(channel.send(1) && channel.send(2) && channel.send(3))
        #expect(channel.count == 3)
        #expect([channel.receive(), channel.receive(), channel.receive()] == [1, 2, 3])
    }

    @Test func aSenderWaitsWhileTheChannelIsFull() {
        let channel = BlockingChannel<Int>(capacity: 1)
        channel.send(1)
        let sent = BlockingChannel<Date>(capacity: 1)
        Thread.detachNewThread {
            channel.send(2)
            sent.send(Date())
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(sent.count == 0, "the second send returned while the channel was full")
        let took = Date()
        #expect(channel.receive() == 1)
        let returned = sent.receive(before: Date().addingTimeInterval(5))
        #expect(returned.map { $0 >= took } == true)
        #expect(channel.receive() == 2)
    }

    @Test func closingHandsOverWhatWaitsThenNil() {
        let channel = BlockingChannel<String>(capacity: 4)
        channel.send("a")
        channel.send("b")
        channel.close()
        #expect(!channel.send("c"), "a send after close is refused")
        #expect(channel.receive() == "a")
        #expect(channel.receive() == "b")
        #expect(channel.receive() == nil)
    }

    @Test func closingWakesAWaitingReceiver() {
        let channel = BlockingChannel<Int>(capacity: 1)
        let result = BlockingChannel<Int?>(capacity: 1)
        Thread.detachNewThread { result.send(channel.receive()) }
        Thread.sleep(forTimeInterval: 0.1)
        channel.close()
        #expect(result.receive(before: Date().addingTimeInterval(5)) == .some(nil))
    }

    @Test func cancellingReleasesABlockedSenderAndDropsWhatWaits() {
        let channel = BlockingChannel<Int>(capacity: 1)
        channel.send(1)
        let outcome = BlockingChannel<Bool>(capacity: 1)
        Thread.detachNewThread { outcome.send(channel.send(2)) }
        Thread.sleep(forTimeInterval: 0.1)
        channel.cancel()
        #expect(outcome.receive(before: Date().addingTimeInterval(5)) == false)
        #expect(channel.count == 0)
        #expect(channel.receive() == nil)
    }

    @Test func aDeadlinePassesWithNothingReceived() {
        let channel = BlockingChannel<Int>(capacity: 1)
        let start = Date()
        #expect(channel.receive(before: start.addingTimeInterval(0.15)) == nil)
        #expect(Date().timeIntervalSince(start) >= 0.14)
    }

    @Test func receiveAllTakesEverythingWaitingAndCanWaitForTheFirst() {
        let channel = BlockingChannel<Int>(capacity: 10)
        #expect(channel.receiveAll(waiting: false).isEmpty)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.1)
            channel.send(7)
        }
        #expect(channel.receiveAll(waiting: true) == [7])
        channel.send(8)
        channel.send(9)
        #expect(channel.receiveAll(waiting: false) == [8, 9])
    }

    /// Many values through a small channel between two threads: none lost, none doubled, in order.
    @Test func aProducerAndAConsumerAgreeOnEveryValue() {
        let channel = BlockingChannel<Int>(capacity: 4)
        let n = 20_000
        Thread.detachNewThread {
            for i in 0..<n { channel.send(i) }
            channel.close()
        }
        var received: [Int] = []
        while let value = channel.receive() { received.append(value) }
        #expect(received == Array(0..<n))
    }
}
