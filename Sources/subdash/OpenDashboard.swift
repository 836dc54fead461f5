import ArgumentParser

struct OpenDashboard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dashboard", abstract: "Open the dashboard on a store.")

    mutating func run() async throws {
        throw ValidationError("'dashboard' is not available yet")
    }
}
