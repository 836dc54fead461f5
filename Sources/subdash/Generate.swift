import ArgumentParser

struct Generate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "generate", abstract: "Generate simulated subscriber lifecycles as real payloads.")

    mutating func run() async throws {
        throw ValidationError("'generate' is not available yet")
    }
}
