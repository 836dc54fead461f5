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

    @Test func aSenderWaitsWhileTheWaitingValuesWeighTheLimit() {
        let channel = BlockingChannel<[UInt8]>(capacity: 100, weightLimit: 10, weight: { $0.count })
        #expect(channel.send(Array(repeating: 1, count: 6)))
        let sent = BlockingChannel<Bool>(capacity: 1)
        Thread.detachNewThread { sent.send(channel.send(Array(repeating: 2, count: 6))) }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(sent.count == 0, "6 + 6 bytes went past a limit of 10")
        #expect(channel.receive()?.first == 1)
        #expect(sent.receive(before: Date().addingTimeInterval(5)) == true)
        #expect(channel.receive()?.first == 2)
    }

    @Test func oneValueHeavierThanTheLimitStillPassesAnEmptyChannel() {
        let channel = BlockingChannel<[UInt8]>(capacity: 4, weightLimit: 10, weight: { $0.count })
        #expect(channel.send(Array(repeating: 3, count: 50)))
        #expect(channel.receive()?.count == 50)
        #expect(channel.send([1]) && channel.send([2]), "the heavy value's weight left with it")
        #expect(channel.receiveAll(waiting: false) == [[1], [2]])
        #expect(channel.send(Array(repeating: 4, count: 10)), "the weight of values taken at once left with them")
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
