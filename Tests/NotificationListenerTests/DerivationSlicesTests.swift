import Testing

@testable import NotificationListener

/// How much derivation each of the listener's commits carries.
@Suite struct DerivationSlicesTests {
    static let ids = (1...200).map { "\($0)" }

    @Test func aSliceIsTheBudgetOverTheMeasuredCostOfOneSubscription() {
        let start = ContinuousClock.now
        var slices = DerivationSlices(budget: 0.004)
        slices.load(Self.ids, at: start)
        // Until measured, a subscription is taken to cost 1 ms: 4 of them in 4 ms.
        #expect(slices.next(alone: false, at: start) == ["1", "2", "3", "4"])
        // Measured at 10 ms each: the moving average (0.7 × 1 + 0.3 × 10 = 3.7 ms) gives 1.
        slices.done(4, seconds: 0.04)
        #expect(slices.next(alone: false, at: start) == ["5"])
        // With nobody sending, 50 ms of them: 13 at 3.7 ms.
        #expect(slices.next(alone: true, at: start).count == 13)
    }

    @Test func aListLateBeyondHalfASecondGetsProportionallyLargerSlices() {
        let start = ContinuousClock.now
        var slices = DerivationSlices(budget: 0.004)
        slices.load(Self.ids, at: start)
        #expect(slices.next(alone: false, at: start + .milliseconds(400)).count == 4)
        #expect(slices.next(alone: false, at: start + .seconds(1)).count == 8)
        #expect(slices.next(alone: false, at: start + .seconds(5)).count == 40)
        // A new list starts on time again.
        slices.load(Self.ids, at: start + .seconds(5))
        #expect(slices.next(alone: false, at: start + .seconds(5)).count == 4)
    }

    @Test func theListEndsWhenEverySliceIsDoneOrFailed() {
        let start = ContinuousClock.now
        var slices = DerivationSlices(budget: 1)
        slices.load(["a", "b", "c"], at: start)
        #expect(slices.next(alone: false, at: start) == ["a", "b", "c"])
        slices.failed(2)
        #expect(!slices.isEmpty)
        #expect(slices.next(alone: false, at: start) == ["c"])
        slices.done(1, seconds: 0.001)
        #expect(slices.isEmpty)
        #expect(slices.next(alone: false, at: start).isEmpty)
    }
}
