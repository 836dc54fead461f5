/// Exit codes are part of the contract, so a script can tell "partly done" from "nothing happened".
enum ExitStatus {
    /// Everything done.
    static let ok: Int32 = 0
    /// Done, except for what was named on stderr: documents rejected, ids that match nothing.
    static let partial: Int32 = 1
    /// The command line was wrong (or the dashboard has no terminal): nothing was done.
    static let usage: Int32 = 2
    /// The store could not be used (missing, unreadable, from a newer subdash, the disk full):
    /// nothing was done beyond what the message says was committed.
    static let fatal: Int32 = 3

    /// The lines `--help` and the README show.
    static let help =
        "Exit status: 0 done; 1 done except what was named (documents rejected, ids not found); "
        + "2 usage error; 3 fatal: the store could not be opened or written (missing, from a newer subdash, disk full)."
}
