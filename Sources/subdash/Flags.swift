import ArgumentParser

struct Flags: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flags", abstract: "List current offer flags.")

    mutating func run() async throws {
        throw ValidationError("'flags' is not available yet")
    }
}
