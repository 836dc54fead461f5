import SubscriptionModel

// MARK: - Auto-renew

extension TimelineDerivation {
    /// Sweeps run starts (which reset the status to on) and the toggles and v2 renewal facts in
    /// instant order, producing the intervals and the toggle events.
    mutating func deriveAutoRenew() {
        guard let firstStart = runs.first?.start else { return }
        var changes: [AutoRenewFact] = []
        for note in facts.notifications where note.isToggle {
            changes.append(AutoRenewFact(at: note.instant, isOn: note.autoRenewStatus ?? true, isToggle: true))
        }
        for r in facts.renewals where !r.isV1 {
            // A fact carrying `commitmentInfo` speaks with the commitment's renewal: Apple keeps
            // its own `autoRenewStatus` on while payments remain.
            if let c = r.commitment {
                if let on = c.commitmentAutoRenewStatus {
                    changes.append(AutoRenewFact(at: r.instant, isOn: on, isToggle: false))
                }
            } else if let on = r.autoRenewStatus {
                changes.append(AutoRenewFact(at: r.instant, isOn: on, isToggle: false))
            }
        }
        // At one instant: renewal facts, then toggles; "on", then "off". The last one applied wins.
        changes.sort { a, b in
            if a.at != b.at { return a.at < b.at }
            if a.isToggle != b.isToggle { return !a.isToggle }
            return a.isOn && !b.isOn
        }
        // The status is on at the start of every run and of every commitment.
        var resets = runs.map(\.start) + commitments.map(\.start)
        resets.sort()
        var status = true
        var r = 0
        var c = lastIndex(in: changes, atOrBefore: firstStart.adding(milliseconds: -1)) { $0.at } + 1
        while r < resets.count || c < changes.count {
            if r < resets.count, c >= changes.count || resets[r] <= changes[c].at {
                status = true
                setAutoRenew(true, at: resets[r])
                r += 1
                continue
            }
            let t = changes[c].at
            let before = status
            var toggledOn = false
            var toggledOff = false
            while c < changes.count, changes[c].at == t {
                let ch = changes[c]
                if ch.isToggle && ch.isOn != before {
                    if ch.isOn { toggledOn = true } else { toggledOff = true }
                }
                status = ch.isOn
                c += 1
            }
            setAutoRenew(status, at: t)
            for (toggled, type) in [(toggledOff, EventType.autoRenewOff), (toggledOn, .autoRenewOn)] where toggled {
                events.append(
                    TimelineEvent(
                        at: t, type: type, productId: productId(at: t, fallback: 0), billingPlan: billingPlan(at: t, fallback: 0))
                )
            }
        }
    }

    mutating func setAutoRenew(_ on: Bool, at t: Instant) {
        guard let last = autoRenewIntervals.last else {
            autoRenewIntervals.append(AutoRenewInterval(from: t, to: nil, isOn: on))
            return
        }
        if last.isOn == on { return }
        if last.from == t {
            autoRenewIntervals.removeLast()
            if let prev = autoRenewIntervals.last, prev.isOn == on {
                autoRenewIntervals[autoRenewIntervals.count - 1].to = nil
                return
            }
        } else {
            autoRenewIntervals[autoRenewIntervals.count - 1].to = t
        }
        autoRenewIntervals.append(AutoRenewInterval(from: t, to: nil, isOn: on))
    }

    func autoRenew(at t: Instant) -> Bool {
        let i = lastIndex(in: autoRenewIntervals, atOrBefore: t) { $0.from }
        return i >= 0 ? autoRenewIntervals[i].isOn : true
    }
}
