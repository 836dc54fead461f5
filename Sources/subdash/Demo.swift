import ArgumentParser

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Build a demo store from SampleData and open the dashboard.")

    mutating func run() async throws {
        throw ValidationError("'demo' is not available yet")
    }
}
