import Foundation

/// Polls `condition` every `interval` seconds until it holds (true) or `timeout` seconds have
/// passed (false): waiting for a state instead of sleeping for a guessed time.
public func waitUntil(timeout: Double, interval: Double = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: interval)
    }
}
